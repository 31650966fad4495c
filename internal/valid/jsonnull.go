package valid

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// NullError reports a JSON null where decoding would silently leave a zero
// value: encoding/json reads null into a number, a bool, a string, a struct
// or an array as nothing at all, so "epsilon": null decodes as ε = 0.
type NullError struct {
	Path string // the field, e.g. "certificate.epsilon" or "model.theta[3]"
	Want string // what the field holds, e.g. "a number"
}

// Error implements error (for a nil *NullError, says so).
func (e *NullError) Error() string {
	if e == nil {
		return "valid: nil *NullError (no null found)"
	}
	return fmt.Sprintf("field %q must be %s, got null (null is not 0: give the value)", e.Path, e.Want)
}

// JSONNulls returns a *NullError naming the first null in the JSON text b
// that decoding b into v (a pointer, as for json.Unmarshal) would read as a
// zero value: a null at any depth where the Go type is not a pointer, a
// slice, a map or an interface (those decode null as nil, which the caller
// sees). Struct fields are matched as encoding/json matches them (the json
// tag or the field name, exactly or else case-insensitively); a key that
// names no field is not checked. Call it after decoding b succeeded: a
// syntax error is returned as it is.
func JSONNulls(b []byte, v any) error {
	if !bytes.Contains(b, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return nullWalker{dec}.value(reflect.TypeOf(v), nil)
}

// jsonPath is the path to a JSON value, built into a string only when a
// null is reported (a hostile file's deep nesting or long arrays then cost
// no string per value).
type jsonPath struct {
	parent *jsonPath
	elem   bool   // an array element (index), else an object member (key)
	key    string // the member's key
	index  int    // the element's index
}

// String renders the path as "certificate.epsilon" or "model.theta[3]".
func (p *jsonPath) String() string {
	var segs []*jsonPath
	for q := p; q != nil; q = q.parent {
		segs = append(segs, q)
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; i-- {
		switch q := segs[i]; {
		case q.elem:
			b.WriteString("[" + strconv.Itoa(q.index) + "]")
		case b.Len() > 0:
			b.WriteString("." + q.key)
		default:
			b.WriteString(q.key)
		}
	}
	return b.String()
}

// nullWalker reads JSON tokens alongside the Go type they decode into.
type nullWalker struct{ dec *json.Decoder }

// value checks the next JSON value, decoded into t (nil: unchecked).
func (w nullWalker) value(t reflect.Type, path *jsonPath) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		if t == nil || nullable(t.Kind()) {
			return nil
		}
		return &NullError{Path: path.String(), Want: describe(t)}
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch tok {
	case json.Delim('{'):
		return w.object(t, path)
	case json.Delim('['):
		return w.array(t, path)
	}
	return nil
}

// object checks the members of an object, up to its closing brace.
func (w nullWalker) object(t reflect.Type, path *jsonPath) error {
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var elem reflect.Type
		switch {
		case t == nil:
		case t.Kind() == reflect.Struct:
			elem = fieldType(t, key)
		case t.Kind() == reflect.Map:
			elem = t.Elem()
		}
		if err := w.value(elem, &jsonPath{parent: path, key: key}); err != nil {
			return err
		}
	}
	_, err := w.dec.Token()
	return err
}

// array checks the elements of an array, up to its closing bracket.
func (w nullWalker) array(t reflect.Type, path *jsonPath) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	for i := 0; w.dec.More(); i++ {
		if err := w.value(elem, &jsonPath{parent: path, elem: true, index: i}); err != nil {
			return err
		}
	}
	_, err := w.dec.Token()
	return err
}

// fieldType is the type of struct t's field that JSON key decodes into
// (nil when none does).
func fieldType(t reflect.Type, key string) reflect.Type {
	var folded reflect.Type
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type
		}
		if folded == nil && strings.EqualFold(name, key) {
			folded = f.Type
		}
	}
	return folded
}

// nullable reports whether encoding/json decodes null into kind k as nil.
func nullable(k reflect.Kind) bool {
	switch k {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	}
	return false
}

// textType is encoding.TextUnmarshaler: a type that reads a JSON string.
var textType = reflect.TypeFor[encoding.TextUnmarshaler]()

// describe names what a value of type t is in JSON.
func describe(t reflect.Type) string {
	if reflect.PointerTo(t).Implements(textType) {
		return "a string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Struct:
		return "an object"
	case reflect.Array:
		return "an array"
	}
	return "a number"
}
