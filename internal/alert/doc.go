// Package alert pages the operator when a provider account needs a human
// (docs/behaviour.md#rules): quota and auth verdicts are POSTed as JSON to the
// configured webhook, at most once per provider and class per min_interval,
// across all replicas.
//
// Notify never blocks the caller: verdicts go to a bounded queue served by one
// background goroutine, which counts them, asks a Claimer for the right to
// alert (claim key "alert:<provider>:<class>", ttl min_interval; a shared
// store makes the de-duplication hold across replicas) and hands each won
// alert to its own delivery goroutine, which retries failures with jittered,
// doubling backoff. An alert still undelivered after every retry releases
// its claim, so the next replica's verdict (or this replica's own next
// attempt, at least a second later and within min_interval of the claim)
// may page: the operator is told once per interval, never zero times. A
// full queue drops the verdict with a log line. Close flushes what is
// queued until its context ends; it starts no new attempt.
//
// Recovered posts once more when a paged account serves again (health
// announces that once across replicas) and rearms its page.
//
// The payload carries provider, class, evidence, first_seen, count, time and
// one human sentence; never a key (the evidence passes through Config.Scrub,
// the process's scrubber, and key-shaped tokens in it are redacted) and never
// the webhook URL in a log line (hook URLs often embed a secret).
//
// It imports only the standard library (its tests also use internal/metrics,
// to count alerts with the real collectors). The Claimer interface is satisfied
// by the health stores (memory and Redis) and by LocalClaimer here; the
// Metrics interface by *metrics.Metrics.
package alert
