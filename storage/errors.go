package storage

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/pg"
)

// Error is an API error in the reference's shape. Status is the logical code
// placed in the body's statusCode; the HTTP status is 400 for every logical
// error below 500 unless HTTPStatus says otherwise (route-not-found, the
// service-role-only routes), mirroring supabase/storage.
type Error struct {
	Status     int    // logical status, rendered as a string in the body
	Code       string // stable code: NoSuchBucket, InvalidKey, ...
	Label      string // legacy "error" field
	Message    string
	HTTPStatus int   // real HTTP status when it is not the default
	Err        error // internal cause, logged and never sent
	// text sends Message alone as a text/plain body: an answer of the TUS
	// protocol itself, which the reference's tus server words, not storage.
	text bool
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// httpStatus is the status line the reference sends for e.
func (e *Error) httpStatus() int {
	switch {
	case e.HTTPStatus != 0:
		return e.HTTPStatus
	case e.Status >= 500:
		return e.Status
	default:
		return http.StatusBadRequest
	}
}

// body is the JSON envelope every error response carries.
func (e *Error) body() map[string]string {
	label := e.Label
	if label == "" {
		label = e.Code
	}
	return map[string]string{
		"statusCode": fmt.Sprint(e.Status),
		"code":       e.Code,
		"error":      label,
		"message":    e.Message,
	}
}

// Constructors for the error catalogue of the wire contract.
func errNoSuchBucket() *Error {
	return &Error{Status: 404, Code: "NoSuchBucket", Label: "Bucket not found", Message: "Bucket not found"}
}

func errNoSuchKey() *Error {
	return &Error{Status: 404, Code: "NoSuchKey", Label: "not_found", Message: "Object not found"}
}

// errMissingBytes is what the reference answers when the row exists but the
// backend has no bytes for it.
func errMissingBytes() *Error {
	return &Error{Status: 404, Code: "NoSuchKey", Label: "Not found", Message: "The resource was not found"}
}

func errKeyExists() *Error {
	return &Error{Status: 409, Code: "KeyAlreadyExists", Label: "Duplicate", Message: "The resource already exists"}
}

func errBucketExists() *Error {
	return &Error{Status: 409, Code: "BucketAlreadyExists", Label: "Duplicate", Message: "The resource already exists"}
}

func errAccessDenied(msg string) *Error {
	return &Error{Status: 403, Code: "AccessDenied", Label: "Unauthorized", Message: msg}
}

func errRLS() *Error { return errAccessDenied("new row violates row-level security policy") }

func errInvalidJWT(msg string) *Error {
	return &Error{Status: 400, Code: "InvalidJWT", Label: "InvalidJWT", Message: msg}
}

func errInvalidSignature(msg string) *Error {
	return &Error{Status: 400, Code: "InvalidSignature", Label: "InvalidSignature", Message: msg}
}

func errTooLarge() *Error {
	return &Error{Status: 413, Code: "EntityTooLarge", Label: "Payload too large",
		Message: "The object exceeded the maximum allowed size"}
}

func errMime(m string) *Error {
	return &Error{Status: 415, Code: "InvalidMimeType", Label: "invalid_mime_type",
		Message: fmt.Sprintf("mime type %s is not supported", m)}
}

func errInvalidKey(k string) *Error {
	return &Error{Status: 400, Code: "InvalidKey", Label: "InvalidKey", Message: "Invalid key: " + k}
}

func errBucketName() *Error {
	return &Error{Status: 400, Code: "InvalidBucketName", Label: "Invalid Input", Message: "Bucket name invalid"}
}

func errNotEmpty() *Error {
	return &Error{Status: 409, Code: "ResourceNotEmpty", Label: "ResourceNotEmpty",
		Message: "The bucket you tried to delete is not empty"}
}

// errInvalid is a request that fails validation (Fastify schema errors and
// the like).
func errInvalid(msg string) *Error {
	return &Error{Status: 400, Code: "InvalidRequest", Label: "InvalidRequest", Message: msg}
}

// errSchema mirrors a Fastify schema failure, whose label is "Bad Request".
func errSchema(msg string) *Error {
	return &Error{Status: 400, Code: "InvalidRequest", Label: "Bad Request", Message: msg}
}

// checkBody validates a decoded request body against its `validate` tags
// and answers the first violation as the reference's schema validation
// does (Fastify's ajv wording), so each body states its schema once, in
// its type, instead of in hand-written checks.
func checkBody(body any) error {
	v := httpx.Validate(body)
	if v == nil {
		return nil
	}
	parent := strings.Join(append([]string{"body"}, v.Path[:len(v.Path)-1]...), "/")
	at := parent + "/" + v.Field()
	switch {
	case v.Rule == "required":
		return errSchema(fmt.Sprintf("%s must have required property '%s'", parent, v.Field()))
	case v.Rule == "oneof":
		return errSchema(at + " must be equal to one of the allowed values")
	case v.Rule == "min" && v.Kind == reflect.Slice:
		return errSchema(fmt.Sprintf("%s must NOT have fewer than %s items", at, v.Param))
	case v.Rule == "min":
		return errSchema(fmt.Sprintf("%s must be >= %s", at, v.Param))
	}
	return errSchema(at + " is invalid")
}

func errRouteNotFound(method, url string) *Error {
	return &Error{Status: 404, Code: "InvalidRequest", Label: "Not Found", HTTPStatus: http.StatusNotFound,
		Message: fmt.Sprintf("Route %s:%s not found", method, url)}
}

// errTus is an answer of the TUS protocol itself, with the status and text
// the reference's tus server (@tus/server) sends.
func errTus(status int, text string) *Error {
	return &Error{Status: status, HTTPStatus: status, Code: "TusError", Message: text, text: true}
}

// errTusLength: a creation with neither Upload-Length nor
// Upload-Defer-Length, or both; a PATCH declaring a length already known,
// or smaller than the offset.
func errTusLength() *Error {
	return errTus(400, "Upload-Length or Upload-Defer-Length header required\n")
}

// errTusGone: the upload expired (the expiration extension).
func errTusGone() *Error { return errTus(410, "The file for this url no longer exists\n") }

// errNoSpace is a full backend. The reference has no code of its own for
// it (a full disk is an InternalError there); 507 tells clients and
// operators what happened, in the reference's envelope.
func errNoSpace(err error) *Error {
	return &Error{Status: 507, Code: "InsufficientStorage", Label: "Insufficient Storage",
		Message: "The storage backend is out of space", Err: err}
}

func errInternal(err error) *Error {
	return &Error{Status: 500, Code: "InternalError", Label: "Internal Server Error",
		Message: "Internal server error", Err: err}
}

// errDBUnavailable is a database outage (pg.Unavailable): 503 with
// Retry-After (set by render), in the shape of the reference's database
// errors, so clients retry instead of reporting a server fault.
func errDBUnavailable(err error) *Error {
	return &Error{Status: 503, Code: "DatabaseError", Label: "DatabaseError",
		Message: "The database is unavailable, please try again later", Err: err}
}

// putError is the answer to a failed Backend.Put or Copy of the bytes of
// the object name.
func putError(name string, err error) *Error {
	switch {
	case errors.Is(err, ErrNoSpace):
		return errNoSpace(err)
	case errors.Is(err, ErrKeyTooLong):
		return errInvalidKey(name)
	}
	return errInternal(err)
}

// asError turns any error into an *Error, treating unknown ones as 500: the
// internal cause is logged by render and never reaches the client.
func asError(err error) *Error {
	if pg.Unavailable(err) {
		return errDBUnavailable(err)
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return errInternal(err)
}
