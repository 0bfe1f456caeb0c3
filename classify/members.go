package classify

import (
	"bytes"
	"encoding/json"
)

// What the client's request carries, read by its member names: credentials
// for a third party and a template the upstream renders (top-level members,
// their names decoded), and the resources a not-found answer may be about
// (notfound.go, refersToResource).

// credentialKeys are the request's top-level members that carry
// credentials the client supplied for a third party: Azure On Your Data's
// data_sources (a search service's key under parameters.authentication),
// Anthropic's mcp_servers (an authorization_token each), connectors; and
// the client's own key for the provider where a gateway in front takes
// one (TensorZero's dynamic "credentials", LiteLLM's client-side
// "api_key"): a key the client sent failing is the client's.
var credentialKeys = [...]string{"data_sources", "mcp_servers", "connectors", "credentials", "api_key"}

// carriesCredential reports whether the request has a top-level member
// named in credentialKeys, or a member named in deepCredentialKeys at any
// depth: the token a tool or a connector takes (OpenAI's MCP and connector
// tools carry tools[].authorization or headers.Authorization), whose
// failure ("Please re-authenticate your Google Drive connection") is the
// client's. A member
// deeper of another name (a search key's "authentication" object) is not
// one, nor is a property of a tool's JSON schema.
func carriesCredential(req []byte) bool {
	return topMember(req, credentialKeys[:]) ||
		members(req, func(s, e, _ int, props bool) bool { return !props && foldKey(req[s:e], deepCredentialKeys[:]) })
}

// Routing preferences: the members of a request that tell a router in
// front of many providers which of them it may use — OpenRouter's
// "provider" object and the Vercel AI Gateway's "providerOptions". The
// operator writes no request member (docs/config.md): these are always
// the client's. They are read by their exact names, the last of a name
// winning, as the router's JSON parser reads them: encoding/json's struct
// fields match any case, so {"provider": {"only": […]}, "Provider": null}
// read as no preferences where the router honoured "only" (review 61h).

// routingKeys name the members, for a first look that allocates nothing.
var routingKeys = [...]string{"provider", "providerOptions", "provider_options"}

// jsonObject is a JSON object's members by exact name (the last of a
// name kept); nil for anything but an object.
func jsonObject(raw []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// restricts reports whether req's top-level members (an object's, by
// exact name) narrow the providers a router may use: OpenRouter's list of
// the only or the ignored ones, quantizations, a price ceiling, no
// fallbacks, zero data retention, no data collection, every parameter
// required, distillable text only; the gateway's "only". A member that
// narrows nothing ("sort": "price", an order with fallbacks allowed, {},
// null) is no choice of the client's that a router could fail to meet
// (review 61g).
func restricts(top map[string]json.RawMessage) bool {
	if p := jsonObject(top["provider"]); p != nil {
		for _, k := range [...]string{"only", "ignore", "quantizations"} {
			var list []json.RawMessage
			if json.Unmarshal(p[k], &list) == nil && len(list) > 0 {
				return true
			}
		}
		if len(jsonObject(p["max_price"])) > 0 {
			return true
		}
		for k, v := range map[string]string{"allow_fallbacks": "false", "zdr": "true", "require_parameters": "true",
			"enforce_distillable_text": "true", "data_collection": `"deny"`} {
			if string(bytes.TrimSpace(p[k])) == v {
				return true
			}
		}
	}
	for _, k := range [...]string{"providerOptions", "provider_options"} {
		var list []json.RawMessage
		if g := jsonObject(jsonObject(top[k])["gateway"]); g != nil && json.Unmarshal(g["only"], &list) == nil && len(list) > 0 {
			return true
		}
	}
	return false
}

// carriesRouting reports whether the request sent upstream narrows the
// providers a router may use (restricts): a router's "no allowed
// providers" or "matching your data policy" is then about the client's
// own choice (decide.go, routing). The request is the client's body, then,
// each after a line break, the header values forwarded and the body sent
// when a door translated it (Response.Request): where that translation
// came last, it is what the router read, and a member the translation
// dropped was never the router's to meet (review 61g: a Messages request
// carrying "provider" to an OpenAI-dialect router). Read only where a
// routing phrase matched.
func carriesRouting(req []byte) bool {
	if !topMember(req, routingKeys[:]) {
		return false // nothing to decode: no allocation
	}
	// A copy for the decoder, which keeps what it reads: req itself stays
	// on the caller's stack (classifying allocates nothing, but here).
	cp := bytes.Clone(req)
	dec := json.NewDecoder(bytes.NewReader(cp))
	var first json.RawMessage
	if dec.Decode(&first) != nil {
		return false
	}
	top := jsonObject(first)
	if off := int(dec.InputOffset()); off < len(cp) {
		if i := bytes.LastIndexByte(cp[off:], '\n'); i >= 0 {
			if last := bytes.TrimSpace(cp[off+i+1:]); len(last) > 0 && last[0] == '{' {
				// A request body (not a forwarded header value that
				// happens to be an object: review 61h).
				if sent := jsonObject(last); sent != nil && (sent["messages"] != nil || sent["input"] != nil || sent["contents"] != nil) {
					top = sent
				}
			}
		}
	}
	return restricts(top)
}

// deepCredentialKeys are member names that carry a credential at any depth
// (a remote MCP tool's "headers": {"Authorization": "Bearer …"}, a
// connector's "authorization"), matched without regard to case.
var deepCredentialKeys = [...]string{"authorization", "authorization_token", "headers", "extra_headers", "api-key", "x-api-key"}

// foldKey reports whether the raw member name is one of keys, ASCII case
// aside (escaped names are not decoded: a credential's member is written
// plainly).
func foldKey(name []byte, keys []string) bool {
	for _, k := range keys {
		if eqFold(name, k) {
			return true
		}
	}
	return false
}

// topMember reports whether req, a JSON object, has a top-level member
// named one of keys, its name escaped or not (a parser reads
// "chat\u005ftemplate" as chat_template).
func topMember(req []byte, keys []string) bool {
	return members(req, func(s, e, depth int, _ bool) bool { return depth == 1 && isKey(req[s:e], keys) })
}

// isKey reports whether the raw JSON string name (its bytes between the
// quotes) is one of keys once its escapes are decoded.
func isKey(name []byte, keys []string) bool {
	if bytes.IndexByte(name, '\\') >= 0 {
		var dec string
		if json.Unmarshal(append(append([]byte{'"'}, name...), '"'), &dec) != nil {
			return false
		}
		name = []byte(dec)
	}
	for _, k := range keys {
		if string(name) == k {
			return true
		}
	}
	return false
}

// memberValue looks for the member name k (quoted) in req from at: j is
// where the value of the first occurrence that is a member (unescaped,
// followed by a colon) starts, -1 where that occurrence is no member;
// next is where to look on, -1 when k occurs no more.
func memberValue(req []byte, k string, at int) (j, next int) {
	i := bytes.Index(req[at:], []byte(k))
	if i < 0 {
		return -1, -1
	}
	i += at
	next = i + len(k)
	if escapedAt(req, i) {
		return -1, next
	}
	j = skipBlanks(req, next)
	if j >= len(req) || req[j] != ':' {
		return -1, next
	}
	return skipBlanks(req, j+1), next
}

// namesField reports whether f's param is a field of the request rather
// than a category (Cerebras sends "param":"quota" with every quota answer,
// its daily cap too): a path ('.' or '['), "model" (in the URL for some
// dialects), a member name req carries at any depth, or any param where no
// request is known. Only a field's param makes the account wording that
// field's content (decide.go); a category's does not, though it still
// counts as structure where nothing else decides. req is the client's
// body, which a translating door's upstream does not see (its param may
// name a member only the translation has): structure keeps those.
func namesField(f *facts, req []byte) bool {
	p := f.param
	if len(p) == 0 {
		return false
	}
	return len(req) == 0 || eq(p, "model") || bytes.IndexAny(p, ".[") >= 0 || hasMember(req, p)
}

// hasMember reports whether req has a member named name (as written, not
// escaped) at any depth, a JSON Schema's property names aside: a tool's
// parameters or a response_format schema with a "quota" property is no
// member "quota" of the request.
func hasMember(req, name []byte) bool {
	return members(req, func(s, e, _ int, props bool) bool { return !props && bytes.Equal(req[s:e], name) })
}

// schemaNames reports a JSON Schema member whose object's keys are names
// the schema gives, not members of the request: "properties", "$defs",
// "definitions", "patternProperties".
func schemaNames(k []byte) bool {
	switch string(k) {
	case "properties", "$defs", "definitions", "patternProperties":
		return true
	}
	return false
}

// members calls fn with each member name in req (as the offsets of its raw
// bytes between the quotes), the depth of the object holding it (1: the
// top level) and whether that object holds a JSON Schema's names
// (schemaNames: "properties", "$defs", …; tracked 32 levels deep); it
// stops, and reports true, when fn does. fn gets offsets, not a slice, so
// that req does not escape through it: the walk runs on error answers and
// allocates nothing. Brackets are counted as they come: broken JSON is
// walked, never trusted.
func members(req []byte, fn func(s, e, depth int, props bool) bool) bool {
	var props [32]bool // whether the object open at each depth is a schema's "properties"
	depth, inStr, start := 0, false, 0
	ks, ke := 0, 0 // the member name whose value comes next
	for i := 0; i < len(req); i++ {
		c := req[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
				if j := skipBlanks(req, i+1); j < len(req) && req[j] == ':' {
					ks, ke = start, i
					if fn(ks, ke, depth, depth > 0 && depth <= len(props) && props[depth-1]) {
						return true
					}
				}
			}
			continue
		}
		switch c {
		case '"':
			inStr, start = true, i+1
		case '{', '[':
			if depth >= 0 && depth < len(props) {
				props[depth] = c == '{' && schemaNames(req[ks:ke])
			}
			depth++
			ks, ke = 0, 0
		case '}', ']':
			depth--
		}
	}
	return false
}

// echoedBesideModel reports whether raw is echoed from req outside the value
// of its top-level "model" member (the route the client asked for, which
// Detour replaces): in the members before it or after it.
func echoedBesideModel(req, raw []byte) bool {
	vs, ve := -1, -1
	members(req, func(s, e, depth int, _ bool) bool {
		if depth != 1 || string(req[s:e]) != "model" {
			return false
		}
		j := skipBlanks(req, skipBlanks(req, e+1)+1)
		if j >= len(req) || req[j] != '"' {
			return true
		}
		for k := j + 1; k < len(req); k++ {
			if req[k] == '\\' {
				k++
				continue
			}
			if req[k] == '"' {
				vs, ve = j, k+1
				break
			}
		}
		return true
	})
	if vs < 0 {
		return echoed(req, raw)
	}
	return echoed(req[:vs], raw) || echoed(req[ve:], raw)
}
