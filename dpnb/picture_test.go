package dpnb

import (
	"errors"
	"image"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/experiments"
)

// TestPicturePanels checks that a figure's Picture is drawn as the first
// panel, before the metric's plot, and that a failing or empty picture is an
// error.
func TestPicturePanels(t *testing.T) {
	res := &experiments.Results{Rows: []experiments.Row{
		{Method: "a", X: 0, Metric: "m", Value: 1}, {Method: "b", X: 0, Metric: "m", Value: 2}}}
	good := func(*experiments.Results) (experiments.Picture, error) {
		return experiments.Picture{Image: image.NewGray(image.Rect(0, 0, 20, 10)), Rows: []string{"r"}, Cols: []string{"c1", "c2"},
			RowsTitle: "method", ColsTitle: "class"}, nil
	}
	fig := experiments.Figure{ID: "x-pic", Title: "pic", Plot: experiments.GroupedBars, Picture: good}
	r := Result{Figure: fig, Results: res, Summary: experiments.Summarize(res)}
	panels, err := r.Panels()
	if err != nil || len(panels) != 2 {
		t.Fatalf("%d panels, %v; want the picture and the bars", len(panels), err)
	}
	if x, y := panels[0].X.Label.Text, panels[0].Y.Label.Text; x != "class" || y != "method" {
		t.Errorf("picture axes titled %q and %q, want the picture's ColsTitle and RowsTitle", x, y)
	}
	png, err := PNGBytes(panels[0])
	if err != nil || !strings.HasPrefix(string(png), "\x89PNG") || len(png) < 2000 {
		t.Fatalf("picture panel: %d bytes, %v", len(png), err)
	}
	for _, bad := range []func(*experiments.Results) (experiments.Picture, error){
		func(*experiments.Results) (experiments.Picture, error) {
			return experiments.Picture{}, errors.New("boom")
		},
		func(*experiments.Results) (experiments.Picture, error) { return experiments.Picture{}, nil },
	} {
		r.Figure.Picture = bad
		if _, err := r.Panels(); err == nil || !strings.Contains(err.Error(), "x-pic") {
			t.Errorf("bad picture: %v", err)
		}
	}
	r.Figure.Picture = nil
	if _, err := r.PicturePlot(); err == nil {
		t.Error("PicturePlot without a picture: no error")
	}
}
