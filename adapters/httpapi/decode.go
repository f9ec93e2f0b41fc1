package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"

	"github.com/curvekit/curvekit"
)

// defaultMaxBody bounds a JSON request body; every body the API takes is under a few kilobytes.
const defaultMaxBody = 64 << 10

// readBody reads the whole request body, at most limit bytes. The pipeline has already set the
// read deadline, so a body trickled byte by byte is cut. Every failure is the client's: too large
// is 413, too slow 408, truncated or malformed (a short Content-Length, broken chunked encoding)
// 400.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err == nil {
		return data, nil
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, fmt.Errorf("%w: body is larger than %d bytes", curvekit.ErrTooLarge, limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, &httpError{status: http.StatusRequestTimeout, message: "request body was not received in time"}
	}
	return nil, invalid("request body is incomplete or malformed")
}

// decodeJSON reads the body and decodes it strictly into v, a pointer to a struct (see
// decodeStrict).
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	data, err := readBody(w, r, defaultMaxBody)
	if err != nil {
		return err
	}
	return decodeStrict(data, v)
}

// decodeStrict decodes one JSON object into v, a pointer to a struct, more strictly than
// encoding/json: the body must be an object (null is not {}), every key must be a field's exact
// name (encoding/json would also take "TYPE" for "type"), no key may repeat (encoding/json keeps
// the last, so {"type":"buy","type":"sell"} would build a sell), and nothing may follow the
// object. Failures are curvekit.ErrInvalid with a message that names the key.
func decodeStrict(data []byte, v any) error {
	obj, err := singleObject(data, "body must be a JSON object")
	if err != nil {
		return err
	}
	if err := checkKeys(json.NewDecoder(bytes.NewReader(obj)), reflect.TypeOf(v), ""); err != nil {
		if errors.Is(err, curvekit.ErrInvalid) {
			return err
		}
		return invalid("body is not a valid JSON object: %s", jsonProblem(err))
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid("body is not a valid JSON object: %s", jsonProblem(err))
	}
	return nil
}

// singleObject returns the one JSON object data holds, or a validation error: notObject when data
// is not an object at all (null included), a syntax error with its offset, or anything after the
// object.
func singleObject(data []byte, notObject string) (json.RawMessage, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, invalid("%s", notObject)
	}
	// The decoder's scanner, for its exact syntax error offsets; callers walk the valid object.
	dec := json.NewDecoder(bytes.NewReader(data))
	var obj json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return nil, invalid("body is not a valid JSON object: %s", jsonProblem(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, invalid("body must hold a single JSON object")
	}
	return obj, nil
}

// checkKeys reads one JSON value from dec and checks the keys of every object in it against t
// (nil: any keys, but still no duplicates).
func checkKeys(dec *json.Decoder, t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		fields := jsonFields(t)
		seen := make(map[string]bool)
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			key := kt.(string)
			if seen[key] {
				return invalid("%s%s is given more than once", path, key)
			}
			seen[key] = true
			var ft reflect.Type
			switch {
			case fields != nil:
				var ok bool
				if ft, ok = fields[key]; !ok {
					return invalid("unknown field %s%s", path, key)
				}
			case t != nil && t.Kind() == reflect.Map:
				ft = t.Elem()
			}
			if err := checkKeys(dec, ft, path+key+"."); err != nil {
				return err
			}
		}
		_, err := dec.Token()
		return err
	case json.Delim('['):
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t != rawMessageType {
			et = t.Elem()
		}
		for dec.More() {
			if err := checkKeys(dec, et, path); err != nil {
				return err
			}
		}
		_, err := dec.Token()
		return err
	}
	return nil
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// jsonFields maps the JSON names of struct t's fields to their types; nil when t is not a struct.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	out := make(map[string]reflect.Type, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		ft := f.Type
		if ft == rawMessageType {
			ft = nil
		}
		out[name] = ft
	}
	return out
}

// jsonProblem describes a decoding failure without echoing Go type names.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("syntax error at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return fmt.Sprintf("field %s has the wrong type", typ.Field)
		}
		return "want an object"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "unexpected end of input"
	}
	// DisallowUnknownFields reports `json: unknown field "x"`.
	if msg, ok := strings.CutPrefix(err.Error(), "json: "); ok && strings.HasPrefix(msg, "unknown field") {
		return msg
	}
	return "malformed"
}
