// Shared by the client scripts: which cases to run, and one JSON line per
// case on stdout ({"case": name, ...result} or {"case": name, "error": …}).
// The Go tests (internal/clienttest.RunNode) read those lines.

export const base = process.env.DETOUR_URL; // http://127.0.0.1:PORT, no /v1
export const key = process.env.DETOUR_KEY || 'test';
export const model = process.env.DETOUR_MODEL || 'detour-route';
export const embedModel = process.env.DETOUR_EMBED_MODEL || 'detour-vectors';

const only = (process.env.DETOUR_CASES || '').split(',').filter(Boolean);

// errorOf describes an error thrown by an SDK: its class, HTTP status,
// the error body's type and message as the SDK parsed them.
export function errorOf(e) {
  const body = e?.error ?? e?.responseBody ?? e?.data;
  return {
    class: e?.constructor?.name,
    name: e?.name,
    status: e?.status ?? e?.statusCode,
    type: body?.error?.type ?? body?.type ?? e?.type,
    code: body?.error?.code ?? body?.code ?? e?.code,
    message: String(e?.message ?? e).slice(0, 500),
    cause: e?.cause ? String(e.cause?.message ?? e.cause).slice(0, 300) : undefined,
  };
}

// run runs each case (name → async function returning an object) that
// DETOUR_CASES names (all when unset), one after the other.
export async function run(cases) {
  for (const [name, fn] of Object.entries(cases)) {
    if (only.length && !only.includes(name)) continue;
    try {
      const res = await fn();
      console.log(JSON.stringify({ case: name, ...res }));
    } catch (e) {
      console.log(JSON.stringify({ case: name, error: errorOf(e) }));
    }
  }
}

// png is a 1×1 PNG, base64.
export const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

// weather is the one tool every script offers, and its local answer.
export const weatherSchema = {
  type: 'object',
  properties: { location: { type: 'string', description: 'A city' } },
  required: ['location'],
  additionalProperties: false,
};
export const weatherAnswer = (args) => `It is sunny in ${args.location}.`;
