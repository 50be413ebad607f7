package storage_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestList(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "fs")
	e.bucket("music", false)
	for _, n := range []string{"Album/one.mp3", "Album/two.mp3", "Album/sub/deep.mp3", "album2/x.mp3", "cover.png", "beta.txt"} {
		if rec := e.put(e.service, "music", n, "application/octet-stream", []byte(n), false); rec.Code != 200 {
			t.Fatalf("upload %s: %d %s", n, rec.Code, rec.Body)
		}
	}
	names := func(body map[string]any) []string {
		rec := e.do(req{method: "POST", path: "/object/list/music", token: e.service, json: body})
		var rows []map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &rows); err != nil {
			t.Fatalf("list %v = %d %s", body, rec.Code, rec.Body)
		}
		out := []string{}
		for _, r := range rows {
			kind := "file"
			if r["id"] == nil {
				kind = "dir"
			}
			out = append(out, kind+":"+r["name"].(string))
		}
		return out
	}
	tests := []struct {
		name string
		body map[string]any
		want []string
	}{
		{"root interleaves folders and files by name", map[string]any{"prefix": ""},
			[]string{"dir:Album", "dir:album2", "file:beta.txt", "file:cover.png"}},
		{"prefix gets a trailing slash", map[string]any{"prefix": "Album"},
			[]string{"file:one.mp3", "dir:sub", "file:two.mp3"}},
		{"prefix matches case-insensitively", map[string]any{"prefix": "album/"},
			[]string{"file:one.mp3", "dir:sub", "file:two.mp3"}},
		{"search filters names within the level", map[string]any{"prefix": "Album", "search": "t"},
			[]string{"file:two.mp3"}},
		{"limit and offset", map[string]any{"prefix": "", "limit": 2, "offset": 1},
			[]string{"dir:album2", "file:beta.txt"}},
		{"descending", map[string]any{"prefix": "Album", "sortBy": map[string]string{"column": "name", "order": "desc"}},
			[]string{"file:two.mp3", "dir:sub", "file:one.mp3"}},
		{"by created_at puts folders first", map[string]any{"prefix": "Album", "sortBy": map[string]string{"column": "created_at", "order": "asc"}},
			[]string{"dir:sub", "file:one.mp3", "file:two.mp3"}},
		{"wildcards are literal", map[string]any{"prefix": "", "search": "%"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, names(tt.body)); diff != "" {
				t.Errorf("list (-want +got):\n%s", diff)
			}
		})
	}
	wantErr(t, e.do(req{method: "POST", path: "/object/list/music", token: e.service, json: map[string]any{}}),
		400, "400", "InvalidRequest", "body must have required property 'prefix'")
	wantErr(t, e.do(req{method: "POST", path: "/object/list/nope", token: e.service, json: map[string]any{"prefix": ""}}),
		400, "404", "NoSuchBucket", "Bucket not found")
}

func TestListV2(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "fs")
	e.bucket("b", false)
	for i := range 8 {
		e.put(e.service, "b", fmt.Sprintf("files/f%d.txt", i), "text/plain", []byte("x"), false)
	}
	e.put(e.service, "b", "files/sub/deep.txt", "text/plain", []byte("x"), false)
	for _, sort := range []map[string]string{{"column": "name", "order": "asc"}, {"column": "created_at", "order": "desc"}, {"column": "updated_at", "order": "asc"}} {
		t.Run(sort["column"]+" "+sort["order"], func(t *testing.T) {
			seen := map[string]bool{}
			pages := 0
			cursor := ""
			for {
				body := map[string]any{"prefix": "files/", "limit": 2, "sortBy": sort}
				if cursor != "" {
					body["cursor"] = cursor
				}
				rec := e.do(req{method: "POST", path: "/object/list-v2/b", token: e.service, json: body})
				var page struct {
					HasNext    bool   `json:"hasNext"`
					NextCursor string `json:"nextCursor"`
					Objects    []struct {
						Name string `json:"name"`
						Key  string `json:"key"`
					} `json:"objects"`
					Folders []any `json:"folders"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
					t.Fatalf("list-v2 = %d %s", rec.Code, rec.Body)
				}
				pages++
				for _, o := range page.Objects {
					seen[o.Name] = true
				}
				if !page.HasNext {
					break
				}
				cursor = page.NextCursor
				if pages > 10 {
					t.Fatal("pagination does not end")
				}
			}
			if pages != 5 || len(seen) != 9 {
				t.Errorf("pages = %d, objects = %d (%v); want 5 pages of 9 objects", pages, len(seen), seen)
			}
		})
	}
	rec := e.do(req{method: "POST", path: "/object/list-v2/b", token: e.service,
		json: map[string]any{"prefix": "files/", "with_delimiter": true, "limit": 100}})
	var page struct {
		Folders []map[string]string `json:"folders"`
		Objects []map[string]any    `json:"objects"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &page)
	if diff := cmp.Diff([]map[string]string{{"key": "files/sub", "name": "files/sub/"}}, page.Folders); diff != "" || len(page.Objects) != 8 {
		t.Errorf("delimited list: folders (-want +got):\n%s objects %d", diff, len(page.Objects))
	}
}
