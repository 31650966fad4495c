package main

// Number flags: every float flag is read as a CSV cell is
// (data.ParseNumber), every integer flag as a plain decimal integer, so
// that no flag reads a hex float, digits with underscores, Inf, NaN or an
// octal or hex integer that the help and the docs never promise.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/featuredp/featuredp/data"
)

// floatFlag is a float64 flag read by data.ParseNumber: a finite plain
// decimal ("0.5", "-2", "1e-5"), spaces around it trimmed. The standard
// flag.Float64 reads with strconv.ParseFloat, which also takes "0x1p-3",
// "1_0" (ten), "Inf" and "NaN".
type floatFlag float64

func (f *floatFlag) String() string { return strconv.FormatFloat(float64(*f), 'g', -1, 64) }

func (f *floatFlag) Set(s string) error {
	v, err := data.ParseNumber(s)
	if err != nil {
		return errors.New("want a finite plain decimal such as 0.5 or 1e-5 (digits, an optional point and exponent; no hex, underscores, Inf or NaN)")
	}
	*f = floatFlag(v)
	return nil
}

// floatVar defines a float64 flag as fs.Float64Var does, read by
// floatFlag.
func floatVar(fs *flag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	fs.Var((*floatFlag)(p), name, usage)
}

// float64Flag defines a float64 flag as fs.Float64 does, read by
// floatFlag.
func float64Flag(fs *flag.FlagSet, name string, value float64, usage string) *float64 {
	p := new(float64)
	floatVar(fs, p, name, value, usage)
	return p
}

// intFlag is an integer flag read as a plain decimal integer (an optional
// sign, digits), spaces around it trimmed. The standard flag.Int, Int64
// and Uint64 read with base 0, which also takes "0x10" (16), "0b11",
// "1_000" and reads "017" as octal 15; here "017" is 17.
type intFlag[T int | int64 | uint64] struct{ p *T }

func (f *intFlag[T]) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return fmt.Sprint(*f.p)
}

func (f *intFlag[T]) Set(s string) error {
	t := strings.TrimSpace(s)
	var v T
	var err error
	_, unsigned := any(v).(uint64)
	if unsigned {
		var u uint64
		u, err = strconv.ParseUint(t, 10, 64)
		v = T(u)
	} else {
		var n int64
		n, err = strconv.ParseInt(t, 10, 64)
		if v = T(n); err == nil && int64(v) != n {
			err = strconv.ErrRange
		}
	}
	kind := "an integer"
	if unsigned {
		kind = "a non-negative integer"
	}
	switch {
	case errors.Is(err, strconv.ErrRange):
		return fmt.Errorf("out of range: want %s of at most %d bits", kind, reflect.TypeFor[T]().Bits())
	case err != nil:
		return fmt.Errorf("want %s in decimal digits such as 100 (no 0x, 0o or 0b prefix, underscores, point or exponent)", kind)
	}
	*f.p = v
	return nil
}

// intVar defines an integer flag as fs.IntVar, Int64Var or Uint64Var
// does, read by intFlag.
func intVar[T int | int64 | uint64](fs *flag.FlagSet, p *T, name string, value T, usage string) {
	*p = value
	fs.Var(&intFlag[T]{p}, name, usage)
}

// intFlagOf defines an integer flag as fs.Int, Int64 or Uint64 does, read
// by intFlag.
func intFlagOf[T int | int64 | uint64](fs *flag.FlagSet, name string, value T, usage string) *T {
	p := new(T)
	intVar(fs, p, name, value, usage)
	return p
}

// printDefaults prints the flags of fs to w as fs.PrintDefaults does for
// the standard flag types: a floatFlag or intFlag without a back-quoted
// name in its usage is shown as "float", "int" or "uint" (the flag package
// calls any other Value "value"), and a default is shown unless zero.
func printDefaults(fs *flag.FlagSet, w io.Writer) {
	shadow := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		switch f.Value.(type) {
		case *floatFlag:
			shadow.Float64(f.Name, 0, f.Usage)
		case *intFlag[int], *intFlag[int64]:
			shadow.Int64(f.Name, 0, f.Usage)
		case *intFlag[uint64]:
			shadow.Uint64(f.Name, 0, f.Usage)
		default:
			shadow.Var(f.Value, f.Name, f.Usage)
		}
		shadow.Lookup(f.Name).DefValue = f.DefValue
	})
	shadow.SetOutput(w)
	shadow.PrintDefaults()
}
