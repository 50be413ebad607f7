package storage_test

import "testing"

// Request bodies are checked against their schema, declared on their Go
// types, before the handler looks anything up (as the reference's Fastify
// validates a body before its handler runs), and a broken rule answers in
// the reference's (ajv's) words.
func TestBodySchemaErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "fs")
	e.bucket("docs", false)
	for _, tc := range []struct {
		name, path string
		body       map[string]any
		msg        string
	}{
		{"create bucket without a name", "/bucket", map[string]any{"id": "x", "public": true},
			"body must have required property 'name'"},
		{"move without bucketId", "/object/move", map[string]any{"sourceKey": "a", "destinationKey": "b"},
			"body must have required property 'bucketId'"},
		{"move without sourceKey", "/object/move", map[string]any{"bucketId": "docs", "destinationKey": "b"},
			"body must have required property 'sourceKey'"},
		{"copy without destinationKey", "/object/copy", map[string]any{"bucketId": "docs", "sourceKey": "a"},
			"body must have required property 'destinationKey'"},
		{"move with nothing", "/object/move", map[string]any{}, "body must have required property 'bucketId'"},
		{"list by an unknown column", "/object/list/docs", map[string]any{"prefix": "", "sortBy": map[string]string{"column": "size"}},
			"body/sortBy/column must be equal to one of the allowed values"},
		{"list-v2 by a column only v1 has", "/object/list-v2/docs", map[string]any{"sortBy": map[string]string{"column": "last_accessed_at"}},
			"body/sortBy/column must be equal to one of the allowed values"},
		// The schema is checked before the bucket is looked up.
		{"list an unknown bucket by an unknown column", "/object/list/nope",
			map[string]any{"prefix": "", "sortBy": map[string]string{"column": "size"}},
			"body/sortBy/column must be equal to one of the allowed values"},
		{"list-v2 an unknown bucket by an unknown column", "/object/list-v2/nope",
			map[string]any{"sortBy": map[string]string{"column": "size"}},
			"body/sortBy/column must be equal to one of the allowed values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, e.do(req{method: "POST", path: tc.path, token: e.service, json: tc.body}),
				400, "400", "InvalidRequest", tc.msg)
		})
	}
	// An empty column is no column: the default order.
	if rec := e.do(req{method: "POST", path: "/object/list/docs", token: e.service,
		json: map[string]any{"prefix": "", "sortBy": map[string]string{"column": ""}}}); rec.Code != 200 {
		t.Errorf("list with an empty sort column: %d %s", rec.Code, rec.Body)
	}
}
