package redact

import "strings"

// accountEdits replaces, in text for a client, what an upstream's message
// says about the operator's account rather than the client's request: an
// organization or project id (OpenAI's org-… and proj_…, Groq's org_…, a
// UUID just after "organization", as Anthropic names one) with
// "[organization]" or "[project]", and the account's usage in a rate-limit message ("Limit
// 30000, Used 29874, Requested 512": the Used figure) with "[usage]". A
// client of a shared gateway would otherwise read which account serves it
// and, by polling, every other key's traffic (review 37a). The limit and
// what the client itself requested stay: they explain the refusal.
func accountEdits(msg, lower string, eds *edits) {
	for _, id := range [...]struct{ prefix, with string }{{"org-", "[organization]"}, {"org_", "[organization]"}, {"proj_", "[project]"}} {
		for at := 0; ; {
			i := strings.Index(lower[at:], id.prefix)
			if i < 0 {
				break
			}
			from := at + i
			to := from + len(id.prefix)
			for to < len(msg) && alnum(msg[to]) {
				to++
			}
			if (from == 0 || !keyByte(msg[from-1])) && to-from-len(id.prefix) >= minAccountID {
				eds.add(from, to, id.with)
			}
			at = to
		}
	}
	// Anthropic names the organization by a UUID: "the rate limit for your
	// organization (a22cf6e6-a940-4fff-8c4c-1580816ac7be) of …".
	for at := 0; ; {
		i := strings.Index(lower[at:], "organi") // organization, organisation
		if i < 0 {
			break
		}
		at += i + len("organi")
		for j := at; j < len(msg) && j < at+orgUUIDWithin; j++ {
			if isUUID(lower[j:]) && (j == 0 || !keyByte(msg[j-1])) {
				eds.add(j, j+uuidLen, "[organization]")
				break
			}
		}
	}
	// Google names the project (review 67d): its number in a quota answer
	// ("for consumer 'project_number:391029737820'"), its number or id in a
	// resource name ("projects/acme-prod/locations/…", ErrorInfo's
	// "consumer": "projects/3910…") and in a console link ("…/overview?project=3910…").
	for _, lead := range [...]string{"project_number:", "projects/", "project="} {
		for at := 0; ; {
			i := strings.Index(lower[at:], lead)
			if i < 0 {
				break
			}
			from := at + i + len(lead)
			to := from
			for to < len(msg) && (alnum(msg[to]) || msg[to] == '-') {
				to++
			}
			if to-from >= minGoogleProject && (at+i == 0 || !alnum(msg[at+i-1])) {
				eds.add(from, to, "[project]")
			}
			at = max(to, from)
		}
	}
	for at := 0; ; {
		i := strings.Index(lower[at:], ", used ")
		if i < 0 {
			break
		}
		from := at + i + len(", used ")
		to := from
		for to < len(msg) && digit(msg[to]) {
			to++
		}
		if to > from && limitBefore(lower[:at+i]) {
			eds.add(from, to, "[usage]")
		}
		at = max(to, from)
	}
}

// minGoogleProject is the shortest Google project id (6 characters; a
// project number is 12 digits or so).
const minGoogleProject = 6

// minAccountID is the shortest id after its prefix that is one (OpenAI's
// are 24 characters); "org-wide" is a word.
const minAccountID = 12

// limitBefore reports whether s ends with "limit" and a number.
func limitBefore(s string) bool {
	end := len(s)
	for end > 0 && digit(s[end-1]) {
		end--
	}
	return end < len(s) && strings.HasSuffix(s[:end], "limit ")
}

// orgUUIDWithin is how far after "organi…" a UUID is the organization's;
// uuidLen is a UUID's length in its usual form.
const (
	orgUUIDWithin = 24
	uuidLen       = 36
)

// isUUID reports whether s starts with a UUID (lower-case hex, 8-4-4-4-12)
// that a key byte does not continue.
func isUUID(s string) bool {
	if len(s) < uuidLen {
		return false
	}
	for i := 0; i < uuidLen; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !digit(c) && (c < 'a' || c > 'f') {
				return false
			}
		}
	}
	return len(s) == uuidLen || !keyByte(s[uuidLen])
}
