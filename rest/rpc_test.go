package rest

import (
	"net/http"
	"testing"
)

func TestRPC(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	runScenarios(t, e, []scenario{
		{name: "scalar by get", call: call{target: "/rpc/get_status?name_param=supabot"}, status: 200, raw: strp(`"ONLINE"`)},
		{name: "scalar by post", call: call{method: "POST", target: "/rpc/get_status", body: `{"name_param":"kiwicopple"}`}, status: 200, raw: strp(`"OFFLINE"`)},
		{name: "scalar null", call: call{method: "POST", target: "/rpc/get_status", body: `{"name_param":"nobody"}`}, status: 200, raw: strp(`null`)},
		{name: "scalar with count", call: call{target: "/rpc/get_status?name_param=supabot", headers: map[string]string{"Prefer": "count=exact"}}, status: 200,
			raw: strp(`"ONLINE"`), headers: map[string]string{"Content-Range": "0-0/1"}},
		{name: "scalar head with count", call: call{method: http.MethodHead, target: "/rpc/get_status?name_param=supabot", headers: map[string]string{"Prefer": "count=exact"}}, status: 200,
			raw: strp(""), headers: map[string]string{"Content-Range": "0-0/1"}},
		{name: "personal schema function", call: call{method: "POST", target: "/rpc/get_status", body: `{"name_param":"x"}`, headers: map[string]string{"Content-Profile": "personal"}}, status: 404},
		{name: "default argument", call: call{target: "/rpc/add_them?a=1"}, status: 200, raw: strp(`2`)},
		{name: "all arguments", call: call{method: "POST", target: "/rpc/add_them", body: `{"a":1,"b":5}`}, status: 200, raw: strp(`6`)},
		{name: "overload by names", call: call{method: "POST", target: "/rpc/overloaded", body: `{"a":1,"b":2}`}, status: 200, raw: strp(`3`)},
		{name: "overload without args", call: call{method: "POST", target: "/rpc/overloaded", body: `{}`}, status: 200, raw: strp(`0`)},
		{name: "ambiguous overload", call: call{method: "POST", target: "/rpc/overloaded", body: `{"a":1}`}, status: 300,
			body: `{"code":"PGRST203","message":"Could not choose the best candidate function between: public.overloaded(a => integer), public.overloaded(a => text)","details":null,"hint":"Try renaming the parameters or the function itself in the database so function overloading can be resolved"}`},
		{name: "unknown function", call: call{method: "POST", target: "/rpc/nope", body: `{"x":1,"a":2}`}, status: 404,
			body: `{"code":"PGRST202","message":"Could not find the function public.nope(a, x) in the schema cache","details":"Searched for the function public.nope with parameters a, x or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.","hint":null}`},
		{name: "unknown function no args by get", call: call{target: "/rpc/nope"}, status: 404,
			body: `{"code":"PGRST202","message":"Could not find the function public.nope without parameters in the schema cache","details":"Searched for the function public.nope without parameters, but no matches were found in the schema cache.","hint":null}`},
		{name: "extra argument", call: call{method: "POST", target: "/rpc/add_them", body: `{"a":1,"z":2}`}, status: 404},
		{name: "void is 204", call: call{method: "POST", target: "/rpc/void_func"}, status: 204, raw: strp("")},
		{name: "table function", call: call{target: "/rpc/get_username_and_status?name_param=supabot"}, status: 200,
			body: `[{"username":"supabot","status":"ONLINE"}]`},
		{name: "setof with filters and select", call: call{target: "/rpc/list_messages?select=id,message&id=gt.1&order=id.desc"}, status: 200,
			body: `[{"id":3,"message":"Supabase Launch Week is on fire"},{"id":2,"message":"Perfection is attained, not when there is nothing more to add, but when there is nothing left to take away."}]`},
		{name: "setof with embed", call: call{method: "POST", target: "/rpc/list_messages?select=id,channels(slug)&id=eq.2"}, status: 200,
			body: `[{"id":2,"channels":{"slug":"random"}}]`},
		{name: "setof with count", call: call{target: "/rpc/list_messages?limit=1", headers: map[string]string{"Prefer": "count=exact"}}, status: 206,
			headers: map[string]string{"Content-Range": "0-0/3"}},
		{name: "setof scalar", call: call{target: "/rpc/numbers"}, status: 200, raw: strp(`[1, 2, 3, 4, 5]`)},
		{name: "array argument by get", call: call{target: "/rpc/sum_array?xs={1,2,3}"}, status: 200, raw: strp(`6`)},
		{name: "array argument by post", call: call{method: "POST", target: "/rpc/sum_array", body: `{"xs":[4,5]}`}, status: 200, raw: strp(`9`)},
		{name: "single unnamed json", call: call{method: "POST", target: "/rpc/json_echo", body: `{"any":"thing"}`}, status: 200, body: `{"any":"thing"}`},
		{name: "single unnamed text", call: call{method: "POST", target: "/rpc/text_echo", body: `plain words`, headers: map[string]string{"Content-Type": "text/plain"}},
			status: 200, raw: strp(`"plain words"`)},
		{name: "volatile refused on get", call: call{target: "/rpc/bump_channel?slug_param=x"}, status: 405,
			body: `{"code":"25006","message":"cannot execute INSERT in a read-only transaction","details":null,"hint":null}`},
		{name: "method not allowed", call: call{method: "PATCH", target: "/rpc/void_func", body: `{}`}, status: 405,
			body: `{"code":"PGRST101","message":"Cannot use the PATCH method on RPC","details":null,"hint":null}`},
		{name: "raise exception", call: call{method: "POST", target: "/rpc/raise_custom"}, status: 400,
			body: `{"code":"P0001","message":"custom failure","details":"some detail","hint":"some hint"}`},
		{name: "raise PT402", call: call{method: "POST", target: "/rpc/raise_payment"}, status: 402},
		{name: "raise PGRST", call: call{method: "POST", target: "/rpc/raise_pgrst"}, status: 402,
			body:    `{"code":"123","message":"Payment Required","details":"Quota exceeded","hint":"Upgrade your plan"}`,
			headers: map[string]string{"X-Powered-By": "Nerd Rage"}},
		{name: "response headers and status", call: call{target: "/rpc/set_headers"}, status: 202, raw: strp(`1`),
			headers: map[string]string{"X-Custom": "yes", "Cache-Control": "no-cache"}},
		{name: "single on scalar", call: call{target: "/rpc/add_them?a=1", headers: map[string]string{"Accept": "application/vnd.pgrst.object+json"}}, status: 200, raw: strp(`2`)},
		{name: "head", call: call{method: http.MethodHead, target: "/rpc/numbers"}, status: 200, raw: strp("")},
		{name: "filter param on post is refused", call: call{method: "POST", target: "/rpc/numbers?x=1", body: `{}`}, status: 400},
		{name: "max-affected on non-setof", call: call{method: "POST", target: "/rpc/add_them", body: `{"a":1}`,
			headers: map[string]string{"Prefer": "handling=strict, max-affected=1"}}, status: 400,
			body: `{"code":"PGRST128","message":"Function must return SETOF or TABLE when max-affected preference is used with handling=strict","details":null,"hint":null}`},
		{name: "max-affected on setof", call: call{method: "POST", target: "/rpc/list_messages", body: `{}`,
			headers: map[string]string{"Prefer": "handling=strict, max-affected=1"}}, status: 400,
			body: `{"code":"PGRST124","message":"Query result exceeds max-affected preference constraint","details":"The query affects 3 rows","hint":null}`},
	})
}
