// Detour console. Plain script, no framework, nothing fetched but this
// gateway's own /ui/api. Everything that comes from the server (upstream
// messages and evidence above all) becomes DOM text through el(), never
// markup: there is no innerHTML here, and the Content-Security-Policy's
// Trusted Types would refuse it anyway.
'use strict';

// The evidence of an attempt Detour did not send (the same list as
// decision.Unsent in internal/decision): its message is Detour's own
// reason, not an upstream's words.
const unsentEvidence = { translate: true, allowance: true, 'translation-cost': true };
// idShape is a decision id's (decision.NewID in internal/decision): 16 hex
// digits.
const idShape = /^[0-9a-f]{16}$/;
(function () {
  const page = document.body.dataset.page;
  const API = '/ui/api/';
  const SVG = 'http://www.w3.org/2000/svg';
  let skew = 0; // the server's clock minus ours, in ms

  // el builds an element: attrs set as attributes (on* as listeners),
  // children appended as nodes or as text.
  function el(tag, attrs, ...kids) {
    return build(document.createElement(tag), attrs, kids);
  }
  function svg(tag, attrs, ...kids) {
    return build(document.createElementNS(SVG, tag), attrs, kids);
  }
  function build(e, attrs, kids) {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const k of kids.flat()) {
      if (k === null || k === undefined || k === false) continue;
      e.append(k instanceof Node ? k : String(k));
    }
    return e;
  }
  const $ = (sel) => document.querySelector(sel);

  async function get(path) {
    // From location.origin, never relative: a page opened as
    // http://op:KEY@host/ui/… has credentials in its address, and a
    // browser refuses fetch() of a URL resolved against it (operator
    // review 48b); the credentials it cached for the realm still go.
    const r = await fetch(new URL(API + path, location.origin), { credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } });
    if (!r.ok) {
      let msg = r.status + ' ' + r.statusText;
      try { const j = await r.json(); if (j.error) msg = j.error; } catch (e) { /* not JSON */ }
      const err = new Error(msg);
      err.status = r.status;
      throw err;
    }
    const j = await r.json();
    if (j && j.now) skew = Date.parse(j.now) - Date.now();
    return j;
  }

  let connOK = true;
  function online(ok, why) {
    if (ok === connOK) return;
    connOK = ok;
    const c = $('#conn');
    c.textContent = ok ? 'Connected again.' : 'Cannot reach the gateway (' + why + '); retrying…';
    c.classList.toggle('bad', !ok);
  }

  // poll runs fn now and then every ms after it finished.
  function poll(fn, ms) {
    const run = async () => {
      try {
        await fn();
        online(true);
        document.body.dataset.updated = new Date().toISOString(); // when the page last showed fresh data
      } catch (e) { online(false, e.message); }
      setTimeout(run, ms);
    };
    run();
  }

  // Formatting.
  const safeClass = (c) => (/^[a-z_]+$/.test(c) ? c : 'other');
  function badge(cls, text) {
    return el('span', { class: 'badge c-' + safeClass(cls) }, text === undefined ? cls : text);
  }
  function stateBadge(s) {
    return el('span', { class: 'state s-' + safeClass(s) }, s);
  }
  function fmtMS(ms) {
    if (ms === null || ms === undefined) return '—';
    if (ms < 1) return ms.toFixed(2) + ' ms';
    if (ms < 1000) return Math.round(ms) + ' ms';
    return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
  }
  function fmtSpan(sec) {
    sec = Math.max(0, Math.round(sec));
    const d = Math.floor(sec / 86400), h = Math.floor(sec / 3600) % 24, m = Math.floor(sec / 60) % 60, s = sec % 60;
    if (d) return d + 'd ' + h + 'h';
    if (h) return h + 'h ' + m + 'm';
    if (m) return m + 'm ' + s + 's';
    return s + 's';
  }
  const serverNow = () => Date.now() + skew;
  function ago(iso) {
    return fmtSpan((serverNow() - Date.parse(iso)) / 1000) + ' ago';
  }
  function countdown(iso) {
    const left = (Date.parse(iso) - serverNow()) / 1000;
    return left > 0 ? fmtSpan(left) : 'ending';
  }
  function clock(iso) {
    const d = new Date(iso);
    const p = (n) => String(n).padStart(2, '0');
    return p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds());
  }
  // live <time> elements: a countdown (data-until) or an age (data-ago),
  // brought up to date every second without re-rendering anything.
  function timeUntil(iso) {
    return el('time', { datetime: iso, 'data-until': iso, title: new Date(iso).toLocaleString() }, countdown(iso));
  }
  function timeAgo(iso) {
    return el('time', { datetime: iso, 'data-ago': iso, title: new Date(iso).toLocaleString() }, ago(iso));
  }
  setInterval(() => {
    for (const t of document.querySelectorAll('time[data-until]')) t.textContent = countdown(t.dataset.until);
    for (const t of document.querySelectorAll('time[data-ago]')) t.textContent = ago(t.dataset.ago);
  }, 1000);

  function attemptClass(a) {
    if (a.class) return a.class;
    return a.action === 'done' ? 'ok' : 'canceled';
  }
  // cell is a table cell labelled for the one-card-per-row phone layout;
  // its content is one element, so the label and the value sit side by side.
  function cell(label, ...kids) {
    return el('td', { 'data-label': label }, el('div', { class: 'v' }, ...kids));
  }
  function replaceBody(table, rows) {
    const tb = table.tBodies[0];
    tb.replaceChildren(...rows);
  }

  function failureCell(f) {
    if (!f) return '—';
    return el('span', { class: 'failure' }, badge(f.class), ' ', el('code', { class: 'evidence' }, f.evidence || '—'),
      f.status ? ' (HTTP ' + f.status + ')' : '', ' ', el('span', { class: 'muted' }, timeAgo(f.at)));
  }

  // coolingCell says why a record cools (or, probing, what it recovers
  // from): the class that started the cooldown and the upstream's own
  // words for it, which a later failure of another class does not replace.
  function coolingCell(x) {
    if (!x.cooling_class) return '—';
    return el('span', { class: 'cause' }, badge(x.cooling_class),
      // <bdi>: the upstream's words keep their direction overrides to
      // themselves, inside the quotation marks (hostile 56: U+202E took
      // the closing mark with it, and the words after it read as ours).
      x.cooling_message ? [' ', el('q', { class: 'said' }, el('bdi', null, x.cooling_message))] : null);
  }

  // latencyCell is an endpoint's smoothed latency. A failure is no sample
  // (docs/behaviour.md, "fastest measures again"), so an endpoint whose
  // last attempts timed out keeps its last good latency: it says so, rather
  // than show a timing-out endpoint as answering in milliseconds.
  function latencyCell(e) {
    const m = e.latency_ms === null ? 'not measured' : fmtMS(e.latency_ms);
    if (e.failures > 0 && e.last_class === 'timeout') {
      return e.latency_ms === null ? 'timed out' : 'timed out (last answered in ' + m + ')';
    }
    return m;
  }

  // downSince says since when a record has been out, cooling and probing
  // by turns (a failed probe starts a new short cooldown, so the
  // cooldown's countdown alone never says how long): the time, and how
  // long ago.
  function downSince(x) {
    if (!x.down_since) return '—';
    return el('span', { class: 'down-since' }, el('time', { datetime: x.down_since, title: new Date(x.down_since).toLocaleString() }, clock(x.down_since)),
      ' ', el('span', { class: 'muted' }, '(', timeAgo(x.down_since), ')'));
  }

  // Health.
  async function loadMeta() {
    const m = await get('meta');
    $('#replica').textContent = m.replica ? 'replica ' + m.replica : '';
    return m;
  }

  function healthPage() {
    loadMeta().catch(() => {});
    let last = '';
    poll(async () => {
      const h = await get('health');
      const key = JSON.stringify([h.endpoints, h.accounts, h.state]);
      if (key === last) return;
      last = key;
      const counts = {};
      for (const e of h.endpoints) counts[e.state] = (counts[e.state] || 0) + 1;
      const parts = Object.entries(counts).map(([s, n]) => n + ' ' + s);
      let summary = h.endpoints.length + (h.endpoints.length === 1 ? ' endpoint' : ' endpoints') + (parts.length ? ': ' + parts.join(', ') : '') + '.';
      if (h.state && h.state.store === 'redis' && !h.state.shared) {
        // Redis does not answer: what this page shows is this replica's own.
        summary += ' Health is not shared: Redis has not answered' +
          (h.state.local_since ? ' since ' + clock(h.state.local_since) : '') +
          ', so this is this replica\'s own view, and another replica may show otherwise.';
      }
      if (h.state && h.state.lost_at) {
        // Redis came back without what the replicas share (docs/scale.md).
        summary += ' Redis lost its state at ' + new Date(h.state.lost_at).toLocaleString() +
          ' (restarted empty, failed over to an empty replica, or flushed); this replica wrote back what it held.';
      }
      $('#health-summary').textContent = summary;
      replaceBody($('#endpoints'), h.endpoints.map((e) => el('tr', { class: 'row-' + safeClass(e.state) },
        cell('Target', el('strong', null, e.target)),
        cell('Provider', e.provider),
        cell('Model', el('code', null, e.model)),
        cell('State', stateBadge(e.state)),
        cell('Down since', downSince(e)),
        cell('Cooldown left', e.cooldown_until ? timeUntil(e.cooldown_until) : '—'),
        cell('Cooling for', coolingCell(e)),
        cell('Failures in a row', String(e.failures)),
        cell('Last class', e.last_class ? badge(e.last_class) : '—'),
        cell('Last failure seen here', failureCell(e.last_failure)),
        cell('Latency (first token)', latencyCell(e)))));
      replaceBody($('#accounts'), h.accounts.map((a) => el('tr', { class: 'row-' + safeClass(a.state) },
        cell('Provider', el('strong', null, a.name)),
        cell('State', stateBadge(a.state)),
        cell('Down since', downSince(a)),
        cell('Cooldown left', a.cooldown_until ? timeUntil(a.cooldown_until) : '—'),
        cell('Cooling for', coolingCell(a)),
        cell('Last class', a.last_class ? badge(a.last_class) : '—'),
        cell('Last failure seen here', failureCell(a.last_failure)))));
    }, 1000);
  }

  // Decisions.
  const actionText = {
    done: '✓ answered the client',
    retry: '↻ retry the same endpoint',
    next_endpoint: '→ next endpoint of the target',
    next_target: '→ next target',
    tail: '→ guarded tail',
    stop: '■ stop: the client got this answer',
  };
  const streamBegunStop = '■ stop: the stream had begun — the client kept the text sent before this failure, then got an SSE error event';

  // tokensText says an attempt's usage: input (and its cached part), output
  // (and its reasoning part).
  function tokensText(u) {
    let t = u.prompt_tokens + ' in';
    if (u.cached_tokens) t += ' (' + u.cached_tokens + ' cached)';
    t += ' + ' + u.completion_tokens + ' out';
    if (u.reasoning_tokens) t += ' (' + u.reasoning_tokens + ' reasoning)';
    return t + ' tokens' + (u.incomplete ? ', at least' : '');
  }
  // paidTwice: a billable failed attempt stands beside the attempt that
  // answered, so the request may be billed twice.
  function paidTwice(d) {
    return d.outcome === 'ok' && d.attempts.some((a) => a.billable && a.action !== 'done');
  }

  function pathList(d) {
    return el('ol', { class: 'path' }, d.attempts.map((a) => el('li', { class: 'after-' + safeClass(a.action) },
      badge(attemptClass(a)), ' ', el('span', { class: 'where' }, a.target + '/' + a.provider))));
  }

  function decisionsPage() {
    const params = new URLSearchParams(location.search);
    const form = $('#filters');
    const filterKeys = ['route', 'target', 'class', 'outcome', 'api', 'client'];
    // The address may come from a ticket someone else wrote (hostile 68d):
    // a class, outcome or api the console does not know is not asked for,
    // since the API's refusal would put the address's words in the banner.
    const closed = { class: new Set([...allClasses, 'ok', 'canceled']), outcome: new Set(['ok', 'error', 'canceled', 'shutdown']), api: new Set(allAPIs) };
    const filter = new URLSearchParams();
    for (const k of filterKeys) {
      const v = params.get(k);
      if (v && (!closed[k] || closed[k].has(v))) filter.set(k, v);
    }
    form.elements.client.value = params.get('client') || '';
    loadMeta().then((m) => {
      const fill = (name, values) => {
        const s = form.elements[name];
        for (const v of values) s.append(el('option', { value: v }, v));
        s.value = params.get(name) || '';
      };
      fill('route', m.routes);
      fill('target', m.targets);
      fill('class', m.classes);
      fill('outcome', m.outcomes);
      fill('api', m.apis || allAPIs);
    }).catch(() => {});

    const tbody = $('#decisions').tBodies[0];
    const records = new Map(); // id → record
    let lastSeq = 0;
    let paused = false;
    let first = true;
    const maxRows = 300;

    const pause = $('#pause');
    pause.addEventListener('click', () => {
      paused = !paused;
      pause.setAttribute('aria-pressed', String(paused));
      pause.textContent = paused ? 'Resume live tail' : 'Pause live tail';
      $('#tail-status').textContent = paused ? 'Live tail paused.' : 'Live tail on.';
    });

    function linkFor(id) {
      const q = new URLSearchParams(filter);
      q.set('id', id);
      return '/ui/decisions?' + q.toString();
    }

    function row(d) {
      const open = (ev) => { ev.preventDefault(); show(d.id, true); };
      const tr = el('tr', { 'data-id': d.id },
        cell('Time', el('a', { href: linkFor(d.id), onclick: open, 'aria-label': 'Request ' + d.id + ' at ' + clock(d.time) }, el('time', { datetime: d.time }, clock(d.time)))),
        cell('Route', d.route),
        cell('API', apiOf(d) + (d.stream ? ' · stream' : '')),
        cell('Outcome', el('span', { class: 'outcome o-' + safeClass(d.outcome) }, d.outcome), ' ', String(d.status), d.class ? ' ' : '', d.class ? badge(d.class) : ''),
        cell('Attempts in order', pathList(d)),
        cell('Took', fmtMS(d.ms)),
        cell('Cost', recordCost(d)),
        cell('Client', d.client || '—'));
      tr.addEventListener('click', (ev) => { if (!ev.target.closest('a')) show(d.id, true); });
      return tr;
    }

    async function tail() {
      if (paused) return;
      const q = new URLSearchParams(filter);
      q.set('after', String(lastSeq));
      q.set('limit', '200');
      const j = await get('decisions?' + q.toString());
      if (j.records.length) {
        const frag = document.createDocumentFragment();
        for (const it of j.records) { // newest first
          records.set(it.record.id, it.record);
          frag.append(row(it.record));
        }
        tbody.prepend(frag);
        while (tbody.rows.length > maxRows) {
          const gone = tbody.rows[tbody.rows.length - 1];
          records.delete(gone.dataset.id);
          gone.remove();
        }
        if (!first) $('#tail-status').textContent = j.records.length === 1 ? '1 new request.' : j.records.length + ' new requests.';
      }
      lastSeq = Math.max(lastSeq, j.seq);
      $('#empty').hidden = tbody.rows.length > 0;
      first = false;
    }

    // The requests in progress: replaced whole at each poll (a few at most
    // in the usual case; the gateway lists at most 200, oldest first).
    function since(iso, now) {
      return fmtSpan((Date.parse(now) - Date.parse(iso)) / 1000);
    }
    function progressRow(p, now) {
      const a = p.attempt;
      return el('tr', { 'data-id': p.id },
        cell('Started', el('time', { datetime: p.started, title: new Date(p.started).toLocaleString() }, clock(p.started))),
        cell('Running for', since(p.started, now)),
        cell('Route', p.route),
        cell('API', p.api + (p.stream ? ' · stream' : '')),
        cell('Attempt now', a ? el('span', null, '#' + a.n + ' ', el('span', { class: 'where' }, a.target + '/' + a.provider), ' for ' + since(a.started, now)) : 'not sent yet'),
        cell('Client', p.client || '—'));
    }
    poll(async () => {
      const j = await get('inprogress');
      replaceBody($('#inprogress'), j.requests.map((p) => progressRow(p, j.now)));
      $('#inprogress-count').textContent = j.total ? '(' + j.total + (j.total > j.requests.length ? ', the oldest ' + j.requests.length + ' shown' : '') + ')' : '';
      $('#inprogress-empty').hidden = j.total > 0;
    }, 1000);

    const detail = $('#detail');
    async function show(id, push) {
      if (push) history.pushState({ id }, '', linkFor(id));
      let d = records.get(id);
      if (!d && !idShape.test(id)) {
        // Not a decision id: an address from a ticket or a chat is anyone's
        // words, and the card's heading is the console's voice (hostile
        // 68d: "Request — URGENT: … rotate the key at https://…").
        detail.replaceChildren(el('h2', { id: 'detail-h', tabindex: '-1' }, 'No such request'),
          el('p', null, 'The address names no decision id (16 hex digits, as the X-Detour-Decision header gives it).'), closeButton());
        detail.hidden = false;
        $('#detail-h').focus();
        return;
      }
      if (!d) {
        try { d = await get('decisions/' + encodeURIComponent(id)); } catch (e) {
          detail.replaceChildren(el('h2', { id: 'detail-h', tabindex: '-1' }, 'Request ' + id), el('p', null, e.message), closeButton());
          detail.hidden = false;
          $('#detail-h').focus();
          return;
        }
      }
      for (const r of tbody.rows) r.classList.toggle('selected', r.dataset.id === id);
      detail.replaceChildren(...renderDecision(d));
      detail.hidden = false;
      $('#detail-h').focus();
    }
    function closeButton() {
      return el('button', { type: 'button', class: 'close', onclick: () => {
        detail.hidden = true;
        history.pushState({}, '', '/ui/decisions' + (filter.toString() ? '?' + filter.toString() : ''));
        for (const r of tbody.rows) r.classList.remove('selected');
        const link = tbody.querySelector('tr a');
        if (link) link.focus();
      } }, 'Close');
    }
    window.addEventListener('popstate', () => {
      const id = new URLSearchParams(location.search).get('id');
      if (id) show(id, false); else detail.hidden = true;
    });

    function renderDecision(d) {
      const total = Math.max(d.ms, 0.001);
      // A stream answered 2xx that did not end ok had begun: its client kept
      // the text before the failure, then got an SSE error event.
      const begun = d.stream && d.status >= 200 && d.status < 300 && d.outcome !== 'ok';
      const meta = el('dl', { class: 'meta' },
        el('dt', null, 'Route'), el('dd', null, d.route + ' (' + d.strategy + (d.stream ? ', stream' : '') + ')'),
        el('dt', null, 'API'), el('dd', null, apiOf(d)),
        el('dt', null, 'Outcome'), el('dd', null, el('span', { class: 'outcome o-' + safeClass(d.outcome) }, d.outcome), ' · HTTP ' + d.status, d.class ? ' · ' : '', d.class ? badge(d.class) : ''),
        el('dt', null, 'Took'), el('dd', null, fmtMS(d.ms) + ' in ' + d.attempts.length + (d.attempts.length === 1 ? ' attempt' : ' attempts')),
        el('dt', null, 'At'), el('dd', null, el('time', { datetime: d.time }, new Date(d.time).toLocaleString())),
        el('dt', null, 'Cost'), el('dd', null, recordCost(d), paidTwice(d) ? ' · paid twice: a failed attempt the upstream may bill stands beside the answer' : ''),
        d.client ? [el('dt', null, 'Client'), el('dd', null, d.client)] : null);
      const steps = el('ol', { class: 'steps' }, d.attempts.map((a, i) => {
        const cls = attemptClass(a);
        const start = a.start_ms || 0;
        const bar = el('div', { class: 'bar c-' + safeClass(cls) });
        bar.style.left = (100 * start / total).toFixed(2) + '%';
        bar.style.width = Math.max(0.5, 100 * a.ms / total).toFixed(2) + '%';
        const flags = [];
        if (a.billable) flags.push('billable');
        if (a.counted) flags.push('counted against health');
        if (a.probe) flags.push('probe');
        if (a.retry_after_ms) flags.push('Retry-After ' + fmtMS(a.retry_after_ms));
        if (a.malformed) flags.push(a.malformed + ' malformed chunks skipped');
        if (a.usage) flags.push(tokensText(a.usage));
        if (a.cost_usd !== undefined || a.cost_unknown) flags.push('cost ' + costText(a) + (a.price_tier ? ' at the ' + a.price_tier.replace(',', ' + ').replace('long_context', 'long-context') + ' price' : ''));
        if (a.estimate && a.estimate.output_ceiling) flags.push('usage never came: counted at its ceiling, ' + usd(a.estimate.usd) + ' (the most output the request allowed: what a client budget charges)');
        else if (a.estimate) flags.push('usage never came: estimated at ' + usd(a.estimate.usd) + ' (what a client budget charges)');
        if (a.resent_without) flags.push('refused ' + a.resent_without + ': sent again without it');
        return el('li', { class: 'step c-' + safeClass(cls) },
          el('div', { class: 'step-head' },
            el('span', { class: 'num', 'aria-hidden': 'true' }, String(i + 1)),
            el('span', null, el('strong', null, a.target), ' at ', el('strong', null, a.provider), ' · ', el('code', null, a.model))),
          el('div', { class: 'verdict' },
            a.status ? 'HTTP ' + a.status : (unsentEvidence[a.evidence] ? 'not sent' : 'no HTTP answer'), ' → ', badge(cls),
            a.evidence && a.class ? [' because ', el('code', { class: 'evidence' }, a.evidence)] : null),
          a.message ? el('blockquote', { class: 'message' }, el('span', { class: 'sr-only' }, unsentEvidence[a.evidence] ? "Detour's reason: " : 'Upstream message: '), a.message) : null,
          el('div', { class: 'timing' },
            el('div', { class: 'track', 'aria-hidden': 'true' }, bar),
            el('span', null, 'started +' + fmtMS(start) + ', took ' + fmtMS(a.ms) + (a.ttfb_ms ? ', first byte ' + fmtMS(a.ttfb_ms) : '') + (a.first_token_ms ? ', first token ' + fmtMS(a.first_token_ms) : ''))),
          flags.length ? el('div', { class: 'flags' }, flags.join(' · ')) : null,
          el('div', { class: 'action a-' + safeClass(a.action) },
            a.action === 'stop' && begun ? streamBegunStop : actionText[a.action] || a.action));
      }));
      const out = [
        el('div', { class: 'detail-head' }, el('h2', { id: 'detail-h', tabindex: '-1' }, 'Request ', el('code', null, d.id)), closeButton()),
        meta,
        el('h3', null, 'Failover path'),
        steps,
      ];
      if (d.skipped && d.skipped.length) {
        out.push(el('h3', null, 'Not tried'), el('ul', { class: 'skips' }, d.skipped.map((s) =>
          el('li', null, el('strong', null, s.target + '/' + s.provider), ': ', s.reason))));
      }
      if (d.transitions && d.transitions.length) {
        out.push(el('h3', null, 'Health changes this request caused'), el('ul', { class: 'transitions' }, d.transitions.map((t) =>
          el('li', null, t.scope + ' ', el('strong', null, t.name), ': ', stateBadge(t.from), ' → ', stateBadge(t.to), t.class ? [' (', badge(t.class), ')'] : null,
            t.until ? [' until ', el('time', { datetime: t.until, title: new Date(t.until).toLocaleString() }, new Date(t.until).toLocaleString())] : null))));
      }
      out.push(el('details', null, el('summary', null, 'The record as JSON'), el('pre', { class: 'json' }, JSON.stringify(d, null, 2))));
      return out;
    }

    poll(tail, 500);
    if (params.get('id')) show(params.get('id'), false);
  }

  // Classes over time.
  function classesPage() {
    loadMeta().catch(() => {});
    const box = $('#chart');
    const showOK = $('#show-ok');
    let data = null;
    showOK.addEventListener('change', () => { if (data) draw(data); });
    // Drawn at the box's own width, so text keeps its size on any screen.
    let width = 0;
    new ResizeObserver(() => {
      if (box.clientWidth !== width && data) draw(data);
    }).observe(box);
    poll(async () => { data = await get('classes'); draw(data); }, 5000);

    function draw(j) {
      const series = j.series.filter((s) => showOK.checked || s.class !== 'ok');
      const n = j.minutes.length;
      const totals = new Array(n).fill(0);
      for (const s of series) s.counts.forEach((c, i) => { totals[i] += c; });
      const max = Math.max(1, ...totals);
      width = box.clientWidth;
      const W = Math.max(280, width), H = W < 500 ? 200 : 260, L = 36, B = 24, T = 8, R = 22;
      const bw = (W - L - R) / n;
      const y = (v) => T + (H - T - B) * (1 - v / max);
      const sum = series.map((s) => s.class + ' ' + s.counts.reduce((a, b) => a + b, 0)).join(', ');
      const chart = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img', 'aria-labelledby': 'chart-t chart-d', class: 'bars' },
        svg('title', { id: 'chart-t' }, 'Attempts by class per minute, last 60 minutes'),
        svg('desc', { id: 'chart-d' }, sum ? 'Totals: ' + sum + '.' : 'No attempts in the last hour.'));
      for (const v of new Set([0, Math.round(max / 2), max])) { // whole numbers, placed where they belong
        const yy = y(v);
        chart.append(svg('line', { x1: L, x2: W - R, y1: yy, y2: yy, class: 'grid' }),
          svg('text', { x: L - 6, y: yy + 4, 'text-anchor': 'end', class: 'axis' }, String(Math.round(v))));
      }
      for (let i = 0; i < n; i++) {
        let acc = 0;
        const label = clock(j.minutes[i]).slice(0, 5);
        for (const s of series) {
          const c = s.counts[i];
          if (!c) continue;
          chart.append(svg('rect', { x: L + i * bw + 1, width: Math.max(1, bw - 2), y: y(acc + c), height: y(acc) - y(acc + c), class: 'c-' + safeClass(s.class) },
            svg('title', null, label + ' ' + s.class + ': ' + c)));
          acc += c;
        }
        const every = W < 500 ? 20 : 10;
        if (i % every === 0 || i === n - 1) {
          chart.append(svg('text', { x: L + i * bw + bw / 2, y: H - 6, 'text-anchor': i === n - 1 ? 'end' : 'middle', class: 'axis' }, label));
        }
      }
      box.replaceChildren(chart);
      $('#legend').replaceChildren(...(series.length ? series.map((s) => el('li', null,
        el('span', { class: 'swatch c-' + safeClass(s.class), 'aria-hidden': 'true' }), s.class + ' ' + s.counts.reduce((a, b) => a + b, 0))) :
        [el('li', null, 'No attempts in the last hour.')]));
      const table = $('#classes-table');
      table.tHead.replaceChildren(el('tr', null, el('th', { scope: 'col' }, 'Minute'), series.map((s) => el('th', { scope: 'col' }, s.class))));
      const rows = [];
      for (let i = n - 1; i >= 0; i--) {
        if (!totals[i]) continue;
        rows.push(el('tr', null, el('th', { scope: 'row' }, clock(j.minutes[i]).slice(0, 5)), series.map((s) => el('td', null, String(s.counts[i])))));
      }
      table.tBodies[0].replaceChildren(...rows);
    }
  }

  // The doors a decision record's api names (query.APIs): a count_tokens
  // call is recorded as messages, every Gemini path as gemini. A record
  // without one was written before doors: chat.
  const allAPIs = ['chat', 'messages', 'responses', 'embeddings', 'completions', 'gemini'];
  const apiOf = (d) => d.api || 'chat';

  // Unknowns.
  const allClasses = ['timeout', 'rate_limited', 'quota', 'server_error', 'unavailable', 'auth', 'forbidden', 'overflow',
    'context_length', 'refusal', 'bad_request', 'unknown'];

  function unknownsPage() {
    loadMeta().catch(() => {});
    const box = $('#groups');
    const cards = new Map(); // group key → {node, update}
    let serial = 0;
    poll(async () => {
      const j = await get('unknowns');
      $('#empty').hidden = j.groups.length > 0;
      const fresh = [];
      for (const g of j.groups) {
        const key = g.provider + '\u0000' + g.status + '\u0000' + g.pattern.toLowerCase();
        let c = cards.get(key);
        if (!c) {
          c = card(g, ++serial);
          cards.set(key, c);
          fresh.push(c.node);
        }
        c.update(g);
      }
      if (fresh.length) box.prepend(...fresh);
    }, 2000);

    function card(g, n) {
      const id = 'g' + n;
      const count = el('span');
      const seen = el('span');
      const example = el('blockquote', { class: 'message' });
      const select = el('select', { id: id + '-class' }, allClasses.map((c) => el('option', { value: c }, c)));
      select.value = g.class;
      const rule = el('textarea', { id: id + '-rule', class: 'rule', readonly: true, rows: '2', spellcheck: 'false', 'aria-describedby': id + '-how' });
      const status = el('span', { role: 'status', 'aria-live': 'polite', class: 'copied' });
      let base = g.rule;
      const compose = () => base.replace(/class: [a-z_]+\}$/, 'class: ' + select.value + '}');
      select.addEventListener('change', () => { rule.value = compose(); status.textContent = ''; });
      const copy = el('button', { type: 'button', onclick: async () => {
        rule.value = compose();
        try {
          await navigator.clipboard.writeText(rule.value);
        } catch (e) {
          rule.focus();
          rule.select(); // the text is selected: Ctrl+C / ⌘C copies it
          status.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
          return;
        }
        status.textContent = 'Copied.';
      } }, 'Copy rule');
      const node = el('article', { class: 'group', 'aria-labelledby': id + '-h' },
        el('h2', { id: id + '-h' }, el('code', null, g.pattern || '(no message)')),
        el('p', { class: 'meta' }, el('strong', null, g.provider), ' · HTTP ' + g.status + ' · ', count, ' · ', seen),
        el('p', { class: 'label' }, 'Latest message:'), example,
        g.match ? null : el('p', { class: 'warn' }, 'These answers carried no message: the rule matches every HTTP ' + g.status + ' answer from ' + g.provider + '.'),
        el('div', { class: 'builder' },
          el('label', { for: id + '-class' }, 'Class for these answers'), select,
          el('label', { for: id + '-rule' }, 'Rule'), rule,
          el('div', { class: 'copyrow' }, copy, ' ', status)),
        el('p', { id: id + '-how', class: 'hint' }, 'Paste under classify: rules: (before any broader rule) and reload.'));
      return {
        node,
        update(g2) {
          count.textContent = g2.count === 1 ? 'seen once' : 'seen ' + g2.count + ' times';
          seen.replaceChildren('first ', timeAgo(g2.first), ', last ', timeAgo(g2.last));
          example.textContent = g2.example || '(empty)';
          base = g2.rule;
          if (!rule.value || document.activeElement !== rule) rule.value = compose();
        },
      };
    }
  }

  // Keys.
  // usd formats dollars: four decimals below $10 (a request's cost is often
  // a fraction of a cent), two above.
  function usd(v) {
    if (v > 0 && v < 0.00005) return '< $0.0001'; // not a cost of zero
    const d = v < 10 ? 4 : 2;
    return '$' + v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }); // $1,260.00
  }
  // costText is a record's or an attempt's cost: '—' where no price applies,
  // 'unknown' where a billable attempt never said what it used, a lower
  // bound where a cut stream's count was partial.
  function costText(x) {
    if (x.cost_unknown) return 'unknown';
    if (x.cost_usd === undefined || x.cost_usd === null) return '—';
    return (x.usage && x.usage.incomplete ? '≥ ' : '') + usd(x.cost_usd); // a cut stream's count is a lower bound
  }
  // recordCost is a request's cost: where an attempt's is unknown (its
  // record's cost is null), the known attempts' sum as a lower bound.
  function recordCost(d) {
    if (!d.cost_unknown) return costText(d);
    const known = d.attempts.reduce((s, a) => s + (a.cost_usd || 0), 0);
    return known > 0 ? '≥ ' + usd(known) + ' (part unknown)' : 'unknown';
  }

  const limitText = {
    requests_per_minute: 'requests this minute',
    tokens_per_minute: 'tokens this minute',
    usd_per_day: 'spend today (UTC)',
    usd_per_month: 'spend this month (UTC)',
    max_concurrent: 'requests at once (this replica)',
  };
  function amount(limit, v) {
    return limit.startsWith('usd_') ? usd(v) : String(Math.round(v));
  }
  // level is where a use stands against its cap: at 80% or more 'near',
  // at or past the cap 'over' (a budget may show past 100%: the request
  // that crossed it was admitted before its cost was known).
  function level(used, cap) {
    const pct = cap > 0 ? (used / cap) * 100 : 0;
    return pct >= 100 ? 'over' : pct >= 80 ? 'near' : 'fine';
  }
  // usedCell is a use, a bar and its percentage. The bar is drawn here, not
  // a <meter>: a meter's colour is the browser's, and Chromium's stayed
  // amber at and past the cap (operator review 60: 112%, 238% of a budget
  // under an amber bar); this one is the figure's colour.
  function usedCell(l) {
    const pct = l.cap > 0 ? (l.used / l.cap) * 100 : 0; // past 100 when a request crossed the limit
    const lv = level(l.used, l.cap);
    const concurrent = l.limit === 'max_concurrent';
    const fill = el('span', { class: 'fill fill-' + lv });
    fill.style.width = Math.min(100, pct).toFixed(1) + '%';
    return [el('span', { class: 'used used-' + lv }, amount(l.limit, l.used) + (concurrent ? ' in progress' : '')), ' ',
      el('span', { class: 'gauge', role: 'meter', 'aria-valuemin': '0', 'aria-valuemax': String(l.cap), 'aria-valuenow': String(Math.min(l.used, l.cap)),
        'aria-label': limitText[l.limit] + ': ' + (concurrent ? l.used + ' of ' + l.cap + ' in progress' : Math.round(pct) + '% used') }, fill), ' ',
      el('span', { class: 'muted' }, Math.round(pct) + '%')];
  }
  function keysPage() {
    loadMeta().catch(() => {});
    let last = '';
    poll(async () => {
      const j = await get('keys');
      const key = JSON.stringify(j.keys);
      if (key === last) return;
      last = key;
      $('#empty').hidden = j.keys.length > 0;
      // A key's rows: each of its limits, then its max_concurrent against
      // what this replica serves for it now (operator review 60: the row
      // showed only for a key with no other limit, and never the count).
      const rowsOf = (k) => k.limits.concat(k.max_concurrent ? [{ limit: 'max_concurrent', cap: k.max_concurrent, used: k.in_progress, resets: null }] : []);
      const limited = j.keys.filter((k) => rowsOf(k).length > 0);
      const near = limited.filter((k) => rowsOf(k).some((l) => l.cap > 0 && l.used >= 0.8 * l.cap));
      const refused = j.keys.filter((k) => k.refused || k.disabled);
      const disabled = j.keys.filter((k) => k.disabled);
      $('#keys-summary').textContent = j.keys.length + (j.keys.length === 1 ? ' key' : ' keys') + ', ' + limited.length + ' with limits; ' +
        near.length + ' at 80% or more of a limit; ' + refused.length + ' refused now' + (disabled.length ? ' (' + disabled.length + ' disabled)' : '') + '.';
      const rows = [];
      for (const k of j.keys) {
        const routes = k.routes.length ? k.routes.join(', ') : 'every route';
        // A disabled key is refused whatever its limits say, until a reload enables it.
        const ref = k.disabled ? [badge('forbidden', 'disabled'), ' until the operator enables it']
          : k.refused ? [badge('quota', 'refused: ' + k.refused.limit), ' until ', timeUntil(k.refused.until)] : ['—'];
        if (k.refused_count > 0) {
          // How hard the key floods: a standing alone reads the same for a key that used its allowance.
          ref.push(el('div', { class: 'muted' }, k.refused_count.toLocaleString('en-US') + ' refused since this replica started'));
        }
        const own = rowsOf(k);
        const ls = own.length ? own : [null];
        ls.forEach((l, i) => rows.push(el('tr', { class: i === 0 ? 'key-first' : 'key-more', 'data-limit': l ? l.limit : null },
          cell('Key', i === 0 ? el('strong', null, k.name) : el('span', { class: 'sr-only' }, k.name)),
          cell('Routes', i === 0 ? routes : ''),
          cell('Limit', l ? limitText[l.limit] || l.limit : 'no limits'),
          cell('Used', l ? usedCell(l) : '—'),
          cell('Of', l ? amount(l.limit, l.cap) : '—'),
          cell('Resets in', l && l.resets ? timeUntil(l.resets) : '—'),
          cell('Refused now', i === 0 ? ref : ''))));
      }
      replaceBody($('#keys'), rows);
    }, 2000);
  }

  // Costs.
  const byText = { client: 'Client key', route: 'Route', target: 'Target', provider: 'Provider' };
  function costsPage() {
    loadMeta().catch(() => {});
    const params = new URLSearchParams(location.search);
    const form = $('#cost-form');
    const by = byText[params.get('by')] ? params.get('by') : 'client';
    const win = params.get('window') === 'today' ? 'today' : '24h';
    form.elements.by.value = by;
    form.elements.window.value = win;
    $('#costs-by').textContent = byText[by];
    const line = (r, total) => {
      const tag = total ? 'th' : 'td';
      const c = (label, v, num) => el(tag, { 'data-label': label, class: num ? 'num-cell' : null }, el('div', { class: 'v' }, v));
      const n = (v) => v.toLocaleString('en-US');
      return el('tr', total ? { class: 'total' } : null,
        c(byText[by], total ? 'Total' : r.key),
        c('Requests', r.requests < 0 ? '—' : n(r.requests), true),
        c('Input tokens', n(r.input_tokens), true),
        c('Cached', n(r.cached_tokens), true),
        c('Cache writes', n(r.cache_write_tokens), true),
        c('Output tokens', n(r.output_tokens), true),
        c('Cost', r.priced ? usd(r.cost_usd) : '— (no price)', true),
        c('Cost unknown', r.cost_unknown ? el('span', { class: 'used used-near' }, n(r.cost_unknown)) : '0', true),
        c('Estimated', r.estimated_usd ? usd(r.estimated_usd) : '—', true),
        c('Failovers', n(r.failovers), true));
    };
    let last = '';
    poll(async () => {
      const j = await get('costs?by=' + by + '&window=' + win);
      const key = JSON.stringify(j.rows);
      if (key === last) return;
      last = key;
      const t = j.total;
      $('#empty').hidden = j.rows.length > 0;
      let sum = (t.priced ? 'Spent ' + usd(t.cost_usd) : 'No price is configured for what was used') + ' ' + j.window_text + ' on this replica' +
        (t.requests >= 0 ? ', over ' + t.requests + (t.requests === 1 ? ' request.' : ' requests.') : '.');
      if (t.cost_unknown) sum += ' ' + t.cost_unknown + (t.cost_unknown === 1 ? ' billable attempt' : ' billable attempts') + ' never said what ' + (t.cost_unknown === 1 ? 'it' : 'they') + ' used, so this is a lower bound' + (t.estimated_usd ? ' (estimated at ' + usd(t.estimated_usd) + ' more: what a client budget charges for them)' : '') + '.';
      $('#costs-summary').textContent = sum;
      replaceBody($('#costs'), j.rows.map((r) => line(r, false)));
      $('#costs').tFoot.replaceChildren(...(j.rows.length > 1 ? [line(t, true)] : []));
    }, 2000);
  }

  // A reload refused (operator review 68e): the file the operator edited
  // did not load, so the gateway still runs on what it loaded before, and
  // every page says so, when, and why (the log's "file:line: message"
  // lines, scrubbed by the gateway as the log's are; put on the page as
  // text), until a reload is applied. Before, only the log, /v1/health and
  // a metric said so, and the console showed the old configuration as if
  // the edit had taken.
  function when(iso, cls) {
    const d = new Date(iso);
    const today = new Date(serverNow()).toDateString() === d.toDateString();
    return el('time', { datetime: iso, title: d.toLocaleString(), class: cls }, today ? clock(iso) : d.toLocaleString());
  }
  function reloadNotice() {
    const box = $('#reload-notice');
    let last = '';
    poll(async () => {
      const m = await get('meta');
      const c = m.config;
      const key = JSON.stringify(c ? c.reload_refused : null);
      if (key === last) return;
      last = key;
      const r = c && c.reload_refused;
      if (!r) {
        box.hidden = true;
        box.replaceChildren();
        delete document.body.dataset.reloadRefused;
        return;
      }
      box.replaceChildren(...[
        el('h2', { id: 'reload-notice-h' }, 'The last configuration reload was refused'),
        el('p', null, 'At ', when(r.at, 'refused-at'), ' (', timeAgo(r.at), ') a reload of the configuration was refused, and none of it was applied: ',
          el('strong', null, 'this gateway still runs on the configuration loaded at ', when(c.loaded_at, 'loaded-at')), ' (', timeAgo(c.loaded_at), '), and this console shows that one.'),
        r.errors.length ? el('p', null, 'Why, as the log says it:') : null,
        r.errors.length ? el('ul', { class: 'reasons' }, r.errors.map((e) => el('li', null, el('code', null, el('bdi', null, e))))) : null,
        r.more ? el('p', null, 'and ' + r.more + (r.more === 1 ? ' more problem' : ' more problems') + ': the log has them all.') : null,
        r.hint ? el('p', null, 'Hint: ' + r.hint) : null,
        el('p', { class: 'hint' }, 'Mend the file (', el('code', null, 'detour check -c FILE'), ' checks it) and reload it (SIGHUP): this notice goes away once a reload is applied.'),
      ].filter((n) => n)); // replaceChildren writes a null as the text "null"
      box.hidden = false;
      document.body.dataset.reloadRefused = r.at;
    }, 2000);
  }
  reloadNotice();

  const pages = { health: healthPage, decisions: decisionsPage, classes: classesPage, unknowns: unknownsPage, keys: keysPage, costs: costsPage };
  if (pages[page]) pages[page]();
})();
