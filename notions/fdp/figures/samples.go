package figures

// fdp-samples (E5): one sample per class and method of fdp-fig7's first
// seed, drawn as a grid (the stand-in for the paper's sample figures).

import (
	"context"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/experiments"
)

// samplesCells lists fdp-samples: for every series (the real and blurred
// images first) one image per class of setting A (samplesCellsOf).
func samplesCells(p experiments.Profile) ([]experiments.Cell, error) {
	return samplesCellsOf(DiffusionSettingA(p)), nil
}

// samplesCellsOf lists the cells of fdp-samples for setting s.
func samplesCellsOf(s DiffusionSetting) []experiments.Cell {
	series := append([]string{refRealSamples, RefBlurred}, DiffusionMethods()...)
	xs := make([]float64, len(data.FashionMNISTClasses))
	for i := range xs {
		xs[i] = float64(i)
	}
	cells := experiments.Grid("fdp-samples", 0, series, xs, 1)
	for i := range cells {
		cells[i].Config = diffusionCell{Series: cells[i].Method, Setting: s}
		// The seed of setting A's first replicate: the samples are those
		// fdp-fig7 scores.
		cells[i].Seed = diffusionSeed("fdp-fig7", seriesOf(cells[i].Method), 0)
	}
	return cells
}

// seriesOf maps the real-image row of fdp-samples to fdp-fig7's series.
func seriesOf(s string) string {
	if s == refRealSamples {
		return RefReal
	}
	return s
}

// samplesRun returns the first image of class x of the series, its
// sharpness and the image as hex bytes (pixel values in [0, 255]).
func samplesRun(ctx context.Context, c experiments.Cell, env experiments.Env) ([]experiments.Measurement, error) {
	_, d, out, err := cellSeries(ctx, c, env)
	if err != nil {
		return nil, err
	}
	p := d.Train.D
	k := slices.Index(out.classes, int(c.X))
	if k < 0 {
		return nil, fmt.Errorf("no image of class %v among the samples", c.X)
	}
	img := out.x[k*p : (k+1)*p]
	sh, err := Sharpness(img, DiffusionSide)
	if err != nil {
		return nil, err
	}
	b := make([]byte, p)
	for j, v := range img {
		b[j] = byte(math.Round(127.5 * (min(1, max(-1, v)) + 1)))
	}
	return []experiments.Measurement{{Metric: "sharpness", Value: sh,
		Extra: map[string]string{"image": hex.EncodeToString(b), "class": data.FashionMNISTClasses[int(c.X)]}}}, nil
}

// samplesPicture draws fdp-samples as a grid: one row per series, one
// column per class (the conditioning class of the samples), each image upscaled 4× (nearest neighbour) with a
// 2-pixel white gap.
func samplesPicture(res *experiments.Results) (experiments.Picture, error) {
	const side, scale, gap = DiffusionSide, 4, 2
	var rows []string
	cols := make([]string, len(data.FashionMNISTClasses))
	imgs := map[string]map[int][]byte{}
	for _, r := range res.Rows {
		if r.Metric != "sharpness" {
			continue
		}
		b, err := hex.DecodeString(r.Extra["image"])
		if err != nil || len(b) != side*side {
			return experiments.Picture{}, fmt.Errorf("fdp-samples: %s class %v: bad image column", r.Method, r.X)
		}
		c := int(r.X)
		if c < 0 || c >= len(cols) {
			return experiments.Picture{}, fmt.Errorf("fdp-samples: class %v out of range", r.X)
		}
		if imgs[r.Method] == nil {
			rows = append(rows, r.Method)
			imgs[r.Method] = map[int][]byte{}
		}
		imgs[r.Method][c] = b
		cols[c] = data.FashionMNISTClasses[c]
	}
	if len(rows) == 0 {
		return experiments.Picture{}, fmt.Errorf("fdp-samples: no images in the results")
	}
	cell := side*scale + gap
	img := image.NewGray(image.Rect(0, 0, len(cols)*cell, len(rows)*cell))
	for j := range img.Pix {
		img.Pix[j] = 255
	}
	for i, s := range rows {
		for c, b := range imgs[s] {
			for y := range side * scale {
				for x := range side * scale {
					img.SetGray(c*cell+gap/2+x, i*cell+gap/2+y, color.Gray{Y: b[(y/scale)*side+x/scale]})
				}
			}
		}
	}
	return experiments.Picture{Image: img, Rows: rows, Cols: cols, RowsTitle: "real images, then each method's samples",
		ColsTitle: "class (the class each sample was generated for)"}, nil
}

func init() {
	experiments.MustRegister(experiments.Figure{
		ID:     "fdp-samples",
		Paper:  "fdp",
		Reuses: "fdp-fig7", // its trained runs and samples (the memo)
		Title:  "E5 setting A: one sample per class and method",
		XLabel: "class",
		YLabel: "Laplacian variance (sharpness)",
		Metric: "sharpness",
		Plot:   experiments.GroupedBars,
		// The picture takes Title; the bars get their own.
		MetricTitle: "E5 setting A: sharpness of each method's samples (higher is sharper)",
		XTicks:      classIndexTick,
		Datasets:    data.FashionMNISTFiles,
		Cells:       samplesCells,
		Run:         samplesRun,
		Picture:     samplesPicture,
		ShardUnit:   diffusionUnit, // a shard per trained model
		// Its cells read one model and one set of samples per series, trained
		// and drawn by the first cell that asks: progress counts their
		// training examples, as fdp-fig7's (after fdp-fig7 in the same
		// process, the memo holds them and the run is done at once).
		Work:     diffusionWork,
		WorkUnit: "examples",
		Settings: func(p experiments.Profile) string {
			return diffusionSettingsText(DiffusionSettingA(p), 1, "") + " The first sample of each class of fdp-fig7's first seed."
		},
		Notes: "Stand-in for the paper's sample figures (Figs 1–3, 6, 9): rows are the real and blurred training images, then the " +
			"methods' samples; the image column holds each image's bytes (hex, 14×14, 0 = −1 … 255 = +1).",
	})
}
