package rest

import "testing"

func TestSmoke(t *testing.T) {
	e := newEnv(t)
	for _, target := range []string{"/users?select=username,status&order=username", "/messages?select=id,username(username),channels(slug)&id=eq.1",
		"/channels?select=slug,messages(id)", "/products?select=name,categories(name)", "/rpc/get_status?name_param=supabot"} {
		w := e.do(t, call{target: target})
		t.Log(target, w.Code, w.Header(), w.Body.String())
	}
}
