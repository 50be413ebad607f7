package storage

import (
	"context"
	"net/http"
	"strings"
)

// route is one endpoint: a method set and a pattern of '/'-separated
// segments, where {name} matches one segment and {name...} the (non-empty)
// rest. The table is matched in order, so literal routes come first.
//
// The standard ServeMux is not used because it cleans paths ("a/../b",
// "a//b" redirect), and object names may legally contain such sequences.
type route struct {
	methods string // space-separated
	pattern string
	h       handlerFunc
}

// routeTable lists every endpoint of /storage/v1.
func (s *Service) routeTable() []route {
	rt := []route{
		// Buckets.
		{"GET", "/bucket", s.listBuckets},
		{"POST", "/bucket", s.createBucket},
		{"GET", "/bucket/{id}", s.getBucket},
		{"PUT", "/bucket/{id}", s.updateBucket},
		{"DELETE", "/bucket/{id}", s.deleteBucket},
		{"POST", "/bucket/{id}/empty", s.emptyBucket},

		// Object operations with fixed names come before /object/{bucket}/...
		{"POST", "/object/move", s.moveObject},
		{"POST", "/object/copy", s.copyObject},
		{"POST", "/object/list/{bucket}", s.listObjects},
		{"POST", "/object/list-v2/{bucket}", s.listObjectsV2},
		{"POST", "/object/sign/{bucket}", s.signURLs},
		{"POST", "/object/sign/{bucket}/{path...}", s.signURL},
		{"GET HEAD", "/object/sign/{bucket}/{path...}", s.downloadSigned},
		{"POST", "/object/upload/sign/{bucket}/{path...}", s.signUploadURL},
		{"PUT", "/object/upload/sign/{bucket}/{path...}", s.uploadSigned},
		{"GET HEAD", "/object/public/{bucket}/{path...}", s.downloadPublic},
		{"GET HEAD", "/object/authenticated/{bucket}/{path...}", s.downloadAuthenticated},
		{"GET", "/object/info/public/{bucket}/{path...}", s.infoPublic},
		{"GET", "/object/info/authenticated/{bucket}/{path...}", s.infoAuthenticated},
		{"GET", "/object/info/{bucket}/{path...}", s.info},
		{"POST", "/object/{bucket}/{path...}", s.upload},
		{"PUT", "/object/{bucket}/{path...}", s.update},
		{"GET HEAD", "/object/{bucket}/{path...}", s.download},
		{"DELETE", "/object/{bucket}", s.removeObjects},
		{"DELETE", "/object/{bucket}/{path...}", s.deleteObject},

		// TUS resumable uploads.
		{"POST", "/upload/resumable", s.tusCreate},
		{"POST", "/upload/resumable/sign", s.tusCreateSigned},
		{"HEAD", "/upload/resumable/sign/{id}", s.tusHead},
		{"PATCH", "/upload/resumable/sign/{id}", s.tusPatchSigned},
		{"DELETE", "/upload/resumable/sign/{id}", s.tusDelete},
		{"HEAD", "/upload/resumable/{id}", s.tusHead},
		{"PATCH", "/upload/resumable/{id}", s.tusPatch},
		{"DELETE", "/upload/resumable/{id}", s.tusDelete},
	}
	if s.cfg.ImageTransform {
		rt = append(rt,
			route{"GET", "/render/image/authenticated/{bucket}/{path...}", s.renderAuthenticated},
			route{"GET", "/render/image/public/{bucket}/{path...}", s.renderPublic},
			route{"GET", "/render/image/sign/{bucket}/{path...}", s.renderSigned},
		)
	}
	return rt
}

type paramsKey struct{}

// param returns a path parameter of the matched route.
func param(r *http.Request, name string) string {
	m, _ := r.Context().Value(paramsKey{}).(map[string]string)
	return m[name]
}

// dispatch finds the route for r and runs it, rendering its error.
func (s *Service) dispatch(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if path == "" {
		path = "/"
	}
	if r.Method == http.MethodOptions {
		// CORS is the gateway's; TUS clients also probe the server here.
		if strings.HasPrefix(path, "/upload/resumable") {
			s.tusOptions(w)
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	for _, rt := range s.routes {
		if !hasMethod(rt.methods, r.Method) {
			continue
		}
		params, ok := match(rt.pattern, path)
		if !ok {
			continue
		}
		r = r.WithContext(context.WithValue(r.Context(), paramsKey{}, params))
		if err := rt.h(w, r); err != nil {
			s.render(w, r, err)
		}
		return
	}
	s.render(w, r, errRouteNotFound(r.Method, r.URL.RequestURI()))
}

func hasMethod(methods, m string) bool {
	for _, x := range strings.Fields(methods) {
		if x == m {
			return true
		}
	}
	return false
}

// match checks path against pattern and returns the captured parameters.
func match(pattern, path string) (map[string]string, bool) {
	ps := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	xs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	params := map[string]string{}
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "...}") {
			rest := strings.Join(xs[min(i, len(xs)):], "/")
			if i >= len(xs) || rest == "" {
				return nil, false
			}
			params[p[1:len(p)-4]] = rest
			return params, true
		}
		if i >= len(xs) {
			return nil, false
		}
		if strings.HasPrefix(p, "{") {
			if xs[i] == "" {
				return nil, false
			}
			params[p[1:len(p)-1]] = xs[i]
			continue
		}
		if p != xs[i] {
			return nil, false
		}
	}
	return params, len(xs) == len(ps)
}
