// Package inprogress keeps the requests a replica is serving now, for the
// operator console's "In progress" table (docs/console.md): a decision
// record is written when a request ends, so a request stuck at a provider
// that has stopped answering, or a stream an hour long, shows nowhere else
// until it is over.
//
// A Set holds one Request per request in progress: what the front knew
// when it admitted it (its decision id, door, route, client key name,
// whether it streams) and the attempt dispatch is making now. Nothing of
// the request's body, no key, no upstream text is kept. The zero Set is
// ready to use; a nil *Set keeps nothing. It imports nothing of Detour.
package inprogress
