package rest

import (
	"errors"
	"sort"
	"strings"

	"github.com/basaltdev/basalt/rpc"
)

// rpcHint suggests a function: another name when none is called name, or
// the closest parameter list among its overloads.
func rpcHint(c *Cache, schema, name string, keys []string) any {
	overloads := c.Functions[schema+"."+name]
	var best string
	// No function of that name: suggest another name. Otherwise the name
	// was right and the arguments wrong: suggest a parameter list.
	if len(overloads) == 0 {
		var names []string
		for _, list := range c.Functions {
			if list[0].Schema == schema {
				names = append(names, list[0].Name)
			}
		}
		sort.Strings(names)
		best = fuzzyBest(name, names, fuzzyNames)
	} else {
		lists := make([]string, 0, len(overloads))
		for _, f := range overloads {
			ps := make([]string, 0, len(f.Params))
			for _, p := range f.Params {
				ps = append(ps, p.Name)
			}
			sort.Strings(ps)
			lists = append(lists, "("+strings.Join(ps, ", ")+")")
		}
		if b := fuzzyBest("("+strings.Join(keys, ", ")+")", lists, fuzzyParams); b != "" {
			best = name + b
		}
	}
	if best == "" {
		return nil
	}
	return "Perhaps you meant to call the function " + schema + "." + best
}

// maxFuncArgs is PostgreSQL's FUNC_MAX_ARGS.
const maxFuncArgs = 100

// rpcResolveError renders a failed overload resolution as PostgREST does:
// PGRST203 (300) when several functions fit, else PGRST202 (404) whose
// message and details spell out what was searched for (the argument names,
// sorted, or the single unnamed body parameter), so a client sees why its
// call matched nothing.
func rpcResolveError(cache *Cache, schema, name string, a *rpc.Args, err error) error {
	var amb *rpc.AmbiguousError
	if errors.As(err, &amb) {
		sigs := make([]string, len(amb.Candidates))
		for i, f := range amb.Candidates {
			sigs[i] = f.Signature()
		}
		return pgrstErr(300, "PGRST203", "Could not choose the best candidate function between: "+strings.Join(sigs, ", "),
			nil, "Try renaming the parameters or the function itself in the database so function overloading can be resolved")
	}
	// Sorted on a copy: the arguments are still bound in request order.
	keys := a.Keys
	if !sort.StringsAreSorted(keys) {
		keys = append([]string(nil), keys...)
		sort.Strings(keys)
	}
	// No function takes more than maxFuncArgs parameters: past that the
	// names are cut short, so a body of many keys is not echoed whole
	// (twice) in the answer.
	if len(keys) > maxFuncArgs {
		keys = append(keys[:maxFuncArgs:maxFuncArgs], "…")
	}
	qn := schema + "." + name
	prms := " without parameters"
	if len(keys) > 0 {
		prms = " with parameter" + plural(len(keys)) + " " + strings.Join(keys, ", ")
	}
	msg := "Could not find the function " + qn
	details := "Searched for the function " + qn
	switch a.Body {
	case rpc.BodyText:
		details += " with a single unnamed text parameter"
	case rpc.BodyXML:
		details += " with a single unnamed xml parameter"
	case rpc.BodyBinary:
		details += " with a single unnamed bytea parameter"
	case rpc.BodyJSON:
		details += prms + " or with a single unnamed json/jsonb parameter"
	default:
		details += prms
	}
	switch {
	case a.Body == rpc.BodyText || a.Body == rpc.BodyXML || a.Body == rpc.BodyBinary:
	case len(keys) == 0:
		msg += " without parameters"
	default:
		msg += "(" + strings.Join(keys, ", ") + ")"
	}
	msg += " in the schema cache"
	details += ", but no matches were found in the schema cache."
	var hint any
	// Nothing is close to a key list longer than any function's.
	if a.Body != rpc.BodyText && a.Body != rpc.BodyXML && a.Body != rpc.BodyBinary && len(a.Keys) <= maxFuncArgs {
		hint = rpcHint(cache, schema, name, keys)
	}
	return pgrstErr(404, "PGRST202", msg, details, hint)
}

// plural is the "s" of "parameters" in PGRST202's details.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
