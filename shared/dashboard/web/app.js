// The secscan dashboard: plain DOM code, no framework, no build step.
// Every string from the API (and so from scanned targets) reaches the page as
// a text node or an attribute value, never as HTML: the h() helper below is
// the only way this file creates elements, and it never parses markup.
'use strict';
(function () {
  const OIDC = JSON.parse(document.querySelector('meta[name="secscan-oidc"]').content);
  const REDIRECT = location.origin + '/';
  const main = document.getElementById('main');
  const nav = document.getElementById('nav');
  const who = document.getElementById('who');
  const notice = document.getElementById('notice');

  // The plans of CONTRACT.md, to explain a rule before the API refuses.
  const PLANS = {
    free: { tiers: ['quick', 'standard'], formats: ['md', 'html'], webhooks: false, tokens: false, schedules: 0, cadences: [] },
    starter: { tiers: ['quick', 'standard'], formats: ['md', 'html', 'pdf', 'csv'], webhooks: true, tokens: true, schedules: 3, cadences: ['weekly', 'monthly'] },
    pro: { tiers: ['quick', 'standard', 'deep'], formats: ['md', 'html', 'pdf', 'csv'], webhooks: true, tokens: true, schedules: 20, cadences: ['daily', 'weekly', 'monthly'] },
    enterprise: { tiers: ['quick', 'standard', 'deep'], formats: ['md', 'html', 'pdf', 'csv'], webhooks: true, tokens: true, schedules: 100, cadences: ['daily', 'weekly', 'monthly'] },
  };
  // planFor names the cheapest plan whose rules pass ok, for "needs the X plan".
  function planFor(ok) {
    const name = Object.keys(PLANS).find((p) => ok(PLANS[p])) || 'enterprise';
    return name.charAt(0).toUpperCase() + name.slice(1);
  }
  const CEILING = { quick: 50, standard: 200, deep: 1000 };
  const FORMATS = [
    { ext: 'md', path: 'report.md', label: 'Markdown report', plan: 'Free' },
    { ext: 'html', path: 'report.html', label: 'HTML report', plan: 'Free' },
    { ext: 'pdf', path: 'report.pdf', label: 'PDF report', plan: 'Starter' },
    { ext: 'csv', path: 'findings.csv', label: 'Findings CSV', plan: 'Starter' },
  ];
  const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];
  const TERMINAL = ['completed', 'failed', 'cancelled'];

  // ---- DOM ----------------------------------------------------------------
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'value') el.value = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    add(el, kids);
    return el;
  }
  // add appends kids (nested arrays flattened; null, undefined and false
  // skipped, unlike Node.append, which would print them) as nodes or text.
  function add(el, ...kids) {
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }
  function svg(tag, attrs, ...kids) {
    const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
    return add(el, kids);
  }
  function clear(el) { while (el.firstChild) el.firstChild.remove(); return el; }
  function when(ts) { return ts ? new Date(ts).toLocaleString() : '—'; }
  let uid = 0;
  function id(prefix) { uid += 1; return prefix + '-' + uid; }
  function say(text) { clear(notice); notice.append(text); }
  function field(label, control, hint) {
    const hintId = hint ? id('hint') : null;
    if (hintId) control.setAttribute('aria-describedby', hintId);
    if (!control.id) control.id = id('f');
    return h('div', { class: 'field' }, h('label', { for: control.id }, label), control,
      hint ? h('p', { class: 'hint', id: hintId }, hint) : null);
  }
  function alertBox() { return h('div', { class: 'alert', role: 'alert' }); }
  function showError(box, err) {
    clear(box);
    box.append(err && err.message ? err.message : String(err));
  }
  function copyButton(text, label) {
    return h('button', {
      type: 'button', class: 'secondary', onclick: async (e) => {
        try {
          await navigator.clipboard.writeText(text);
          e.target.textContent = 'Copied';
        } catch (_) {
          e.target.textContent = 'Select and copy';
        }
        say((label || 'Value') + ' copied to the clipboard');
      },
    }, label ? 'Copy ' + label.toLowerCase() : 'Copy');
  }
  // One small icon set, drawn inline (stroke icons on a 24-unit grid): no
  // icon font, no image request, nothing the CSP has to admit. Decorative:
  // hidden from screen readers, the text beside each says it all.
  const ICONS = {
    shield: ['M12 3l8 3v6c0 4.5-3.4 8.2-8 9-4.6-.8-8-4.5-8-9V6z', 'M8.5 12l2.5 2.5 4.5-5'],
    check: ['M5 12.5l4.5 4.5L19 7.5'],
    alert: ['M12 8.5v4.5', 'M12 16.5v.5', 'M10.3 3.9L2.6 17.5a2 2 0 001.7 3h15.4a2 2 0 001.7-3L13.7 3.9a2 2 0 00-3.4 0z'],
    clock: ['M12 7v5l3 2', 'M21 12a9 9 0 11-18 0 9 9 0 0118 0z'],
    lock: ['M7.5 11V8a4.5 4.5 0 019 0v3', 'M5.5 11h13v9.5h-13z'],
  };
  function icon(name) {
    return svg('svg', { class: 'icon', viewBox: '0 0 24 24', 'aria-hidden': 'true', focusable: 'false' }, ICONS[name].map((d) => svg('path', { d })));
  }
  const BADGE_ICONS = { 'state-verified': 'check', 'state-unverified': 'alert', 'state-paused': 'clock', 'state-active': 'check' };
  function badge(value, kind) {
    const name = BADGE_ICONS[kind + '-' + value];
    return h('span', { class: 'badge ' + kind + '-' + value }, name ? icon(name) : null, value);
  }

  // A modal confirmation (a <dialog>: focus is trapped and Escape cancels).
  function confirmDialog(title, message, action) {
    return new Promise((resolve) => {
      const titleId = id('dlg');
      const dlg = h('dialog', { 'aria-labelledby': titleId },
        h('h2', { id: titleId }, title), h('p', {}, message),
        h('form', { method: 'dialog', class: 'row' },
          h('button', { value: 'cancel', class: 'secondary' }, 'Cancel'),
          h('button', { value: 'ok', class: 'danger' }, action)));
      dlg.addEventListener('close', () => { dlg.remove(); resolve(dlg.returnValue === 'ok'); });
      document.body.append(dlg);
      dlg.showModal();
    });
  }

  // ---- Sign-in: authorization code + PKCE; the session stays in memory ----
  // SIGNED_IN in the browser's storage is only a hint ("this browser signed in"), never
  // a token: on a reload or in a new tab the page goes back through the
  // identity provider, whose own session (Cognito's hosted UI, the development
  // provider's cookie) answers at once, and returns to the page it was on.
  const SIGNED_IN = 'secscan:signed-in';
  let session = null; // {id, refresh, exp}
  let refreshTimer = 0;
  let me = null;

  function b64url(bytes) {
    let s = '';
    for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function randomString() { return b64url(crypto.getRandomValues(new Uint8Array(32))); }

  // signIn goes to the identity provider; the page to come back to and the
  // PKCE verifier wait in sessionStorage (this tab only), keyed by state.
  async function signIn(returnTo) {
    const verifier = randomString();
    const state = randomString();
    const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
    sessionStorage.setItem('oidc:' + state, JSON.stringify({ verifier, returnTo: returnTo || '#/overview' }));
    const q = new URLSearchParams({
      response_type: 'code', client_id: OIDC.client_id, redirect_uri: REDIRECT, scope: OIDC.scope,
      state, code_challenge: challenge, code_challenge_method: 'S256',
    });
    location.assign(OIDC.authorize + '?' + q.toString());
  }

  async function tokenRequest(params) {
    const res = await fetch(OIDC.token, {
      method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(Object.assign({ client_id: OIDC.client_id }, params)).toString(),
      credentials: 'omit',
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok || !body.id_token) throw new Error('Sign-in failed: ' + (body.error_description || body.error || res.status));
    return body;
  }

  function keep(tokens) {
    const exp = Date.now() + (Number(tokens.expires_in) || 3600) * 1000;
    session = { id: tokens.id_token, refresh: tokens.refresh_token || (session && session.refresh), exp };
    clearTimeout(refreshTimer);
    // Renew a minute before expiry while the page is open.
    refreshTimer = setTimeout(renew, Math.max(5000, exp - Date.now() - 60000));
  }

  async function renew() {
    if (!session || !session.refresh) return false;
    try {
      keep(await tokenRequest({ grant_type: 'refresh_token', refresh_token: session.refresh }));
      return true;
    } catch (_) {
      return false;
    }
  }

  // finishSignIn completes a redirect back from the provider (?code=&state=).
  async function finishSignIn() {
    const q = new URLSearchParams(location.search);
    if (!q.has('code') && !q.has('error')) return null;
    const state = q.get('state') || '';
    const saved = JSON.parse(sessionStorage.getItem('oidc:' + state) || 'null');
    sessionStorage.removeItem('oidc:' + state);
    history.replaceState(null, '', '/' + (saved ? saved.returnTo : '#/overview'));
    localStorage.removeItem(SIGNED_IN);
    if (q.has('error')) throw new Error('The identity provider refused the sign-in: ' + (q.get('error_description') || q.get('error')));
    if (!saved) throw new Error('This sign-in was not started here (unknown state); sign in again.');
    keep(await tokenRequest({ grant_type: 'authorization_code', code: q.get('code'), redirect_uri: REDIRECT, code_verifier: saved.verifier }));
    localStorage.setItem(SIGNED_IN, '1');
    return true;
  }

  // resume signs in again, silently, a browser that was signed in: after a
  // reload or in a new tab. It returns true when it left the page to do so.
  function resume(finished) {
    if (finished || session || !localStorage.getItem(SIGNED_IN)) return false;
    signIn(location.hash);
    return true;
  }

  function signOut() {
    navigations += 1;
    showRateNote();
    session = null;
    me = null;
    localStorage.removeItem(SIGNED_IN);
    clearTimeout(refreshTimer);
    if (OIDC.logout) {
      const q = new URLSearchParams({ client_id: OIDC.client_id, logout_uri: REDIRECT });
      location.assign(OIDC.logout + '?' + q.toString());
    } else {
      history.replaceState(null, '', '/');
      route();
    }
  }

  // ---- The API -------------------------------------------------------------
  class ApiError extends Error {
    constructor(status, detail, retryAfter) {
      let msg = detail || 'Request failed (' + status + ')';
      if (status === 429 || status === 503) msg += retryAfter ? ' Try again in ' + retryAfter + ' s.' : ' Try again shortly.';
      super(msg);
      this.status = status;
    }
  }

  // The bounds of the automatic retry after a 429 or a 503 with Retry-After:
  // at most RETRY.tries retries and RETRY.budget seconds of waiting in all
  // for one call; a longer Retry-After (the hourly scan-creation limit) is
  // shown as an error at once, saying when to try again.
  const RETRY = { tries: 3, budget: 60 };
  // navigations counts the page changes (and sign-outs): a call whose page
  // the user has left is abandoned, answered or waiting to retry (it neither
  // retries nor settles, so it can neither sign in again behind a sign-out
  // nor draw into the page the user went to).
  let navigations = 0;
  const rateNote = document.getElementById('rate-note');
  const rateWaits = new Set(); // {until, page, why} of the calls waiting to retry
  let rateTimer = 0;
  // showRateNote shows the longest countdown of the calls of the page on
  // screen (the calls of a page left behind are abandoned: no note).
  function showRateNote() {
    let until = 0;
    let why = '';
    for (const w of rateWaits) if (w.page === navigations && w.until > until) ({ until, why } = w);
    if (!until) {
      rateNote.hidden = true;
      clear(rateNote);
      return;
    }
    rateNote.textContent = why + ', retrying in ' + Math.max(0, Math.ceil((until - Date.now()) / 1000)) + ' s';
    rateNote.hidden = false;
  }
  // rateWait waits seconds before a retry, with the note counting down
  // ("Rate limited" after a 429, "Service busy" after a 503).
  function rateWait(seconds, status) {
    const w = { until: Date.now() + seconds * 1000, page: navigations, why: status === 429 ? 'Rate limited' : 'Service busy' };
    rateWaits.add(w);
    showRateNote();
    if (!rateTimer) rateTimer = setInterval(showRateNote, 1000);
    return new Promise((resolve) => setTimeout(resolve, seconds * 1000)).then(() => {
      rateWaits.delete(w);
      if (rateWaits.size === 0) {
        clearInterval(rateTimer);
        rateTimer = 0;
      }
      showRateNote();
    });
  }
  // retryAfter reads Retry-After (whole seconds or an HTTP date) as seconds.
  function retryAfter(value) {
    if (!value) return null;
    if (/^\d+$/.test(value.trim())) return Math.max(1, Number(value));
    const at = Date.parse(value);
    return Number.isNaN(at) ? null : Math.max(1, Math.ceil((at - Date.now()) / 1000));
  }

  // api calls the service with the session; a 401 renews the session once
  // and otherwise sends the user to sign in, coming back to this very page.
  // A GET refused with 429 (or 503) is retried after its Retry-After, within
  // RETRY's bounds, with a visible note; so is a POST that carries an
  // idempotency key (opts.idempotencyKey: the API answers a repeat with the
  // first result). Any other POST, PUT, PATCH or DELETE is never repeated.
  async function api(method, path, body, raw, opts) {
    const key = opts && opts.idempotencyKey;
    const retriable = method === 'GET' || Boolean(key);
    const started = navigations;
    let renewed = false;
    let retries = 0;
    let waited = 0;
    for (;;) {
      if (!session || Date.now() > session.exp) {
        if (!(await renew())) { await signIn(location.hash); throw new ApiError(401, 'Your session has ended; signing in again…'); }
      }
      const init = { method, headers: { Authorization: 'Bearer ' + session.id }, credentials: 'omit' };
      if (key) init.headers['Idempotency-Key'] = key;
      if (body !== undefined) {
        init.headers['Content-Type'] = 'application/json';
        init.body = JSON.stringify(body);
      }
      const res = await fetch(path, init);
      // The user left the page that asked: its answer must not reach the
      // page on screen now (an overview finishing late would append itself
      // to the targets page). The call is abandoned: it never settles.
      if (navigations !== started) return new Promise(() => {});
      if (res.status === 401 && !renewed) {
        renewed = true;
        session.exp = 0; // renew, or sign in again
        continue;
      }
      if ((res.status === 429 || res.status === 503) && retriable && retries < RETRY.tries) {
        const wait = retryAfter(res.headers.get('Retry-After'));
        if (wait !== null && waited + wait <= RETRY.budget) {
          retries += 1;
          waited += wait;
          await rateWait(wait, res.status);
          if (navigations !== started || !session) return new Promise(() => {});
          continue;
        }
      }
      if (raw && res.ok) return res;
      const text = await res.text();
      let data = null;
      try { data = text ? JSON.parse(text) : null; } catch (_) { data = null; }
      if (!res.ok) throw new ApiError(res.status, data && data.detail, res.headers.get('Retry-After'));
      return { data, next: nextLink(res.headers.get('Link')), status: res.status };
    }
  }
  function nextLink(header) {
    const m = /<([^>]+)>\s*;\s*rel="next"/.exec(header || '');
    return m && m[1].startsWith('/api/') ? m[1] : null;
  }

  async function download(scan, f) {
    const res = await api('GET', '/api/scans/' + encodeURIComponent(scan.id) + '/' + f.path, undefined, true);
    const blob = await res.blob();
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: scan.id + '.' + f.ext, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    say(f.label + ' downloaded');
  }

  // ---- Router --------------------------------------------------------------
  let pollTimer = 0;
  // A scan's page, and an issue of it in the side panel.
  const SCAN_ROUTE = /^#\/scans\/(scn_[0-9A-Za-z]+)(?:\/issues\/([^/?#]+))?$/;
  let scanView = null; // {id, root, show(key)} of the scan page on screen
  const routes = [
    [/^#\/targets$/, pageTargets],
    [/^#\/scans(?:\?.*)?$/, pageScans],
    [/^#\/scans\/new(?:\?.*)?$/, pageNewScan],
    [SCAN_ROUTE, pageScan],
    [/^#\/account$/, pageAccount],
    [/^#\/admin$/, pageAdmin],
  ];

  function navBar() {
    clear(nav);
    clear(who);
    if (!me) return;
    const links = [['#/overview', 'Overview'], ['#/targets', 'Targets'], ['#/scans', 'Scans'], ['#/scans/new', 'New scan'], ['#/account', 'Account']];
    if (me.is_admin) links.push(['#/admin', 'Admin']);
    const current = location.hash.replace(/^(#\/scans)\/scn_.*/, '$1').replace(/^(#\/targets)\/tgt_.*/, '$1').replace(/\?.*$/, '');
    add(nav, h('ul', {}, links.map(([href, text]) =>
      h('li', {}, h('a', { href, 'aria-current': current === href ? 'page' : null }, text)))));
    add(who, h('span', { class: 'email', title: me.email }, me.email), h('span', { class: 'badge plan' }, me.plan + ' plan'),
      h('button', { type: 'button', class: 'secondary', onclick: signOut }, 'Sign out'));
  }

  async function route() {
    // Between a scan and its issues the page stays: only the panel changes.
    const sm = SCAN_ROUTE.exec(location.hash);
    if (sm && session && me && scanView && scanView.id === sm[1] && main.contains(scanView.root)) {
      scanView.show(sm[2] ? decodeKey(sm[2]) : null);
      return;
    }
    clearTimeout(pollTimer);
    navigations += 1;
    showRateNote();
    clear(notice);
    if (!session) return pageSignIn();
    if (!me) {
      try { me = (await api('GET', '/api/auth/me')).data; } catch (err) { return pageError(err); }
    }
    if (!location.hash || location.hash === '#/') { location.replace('#/overview'); return; }
    navBar();
    clear(main);
    for (const [re, page] of routes) {
      const m = re.exec(location.hash);
      if (m) {
        try { await page(...m.slice(1)); } catch (err) { pageError(err); }
        return;
      }
    }
    pageError(new Error('There is no such page.'));
  }

  function title(text) {
    document.title = text + ' · secscan';
    return h('h1', {}, text);
  }

  function pageError(err) {
    clear(main);
    add(main, title('Something went wrong'), h('p', { class: 'alert', role: 'alert' }, err.message || String(err)),
      h('p', {}, h('a', { href: '#/overview' }, 'Back to the overview')));
  }

  function pageSignIn(problem) {
    navBar();
    clear(main);
    add(main, title('Sign in'),
      h('p', {}, 'Register the domains you control, prove ownership, and scan them for weaknesses.'),
      problem ? h('p', { class: 'alert', role: 'alert' }, problem) : null,
      h('button', { type: 'button', id: 'sign-in', onclick: () => signIn(location.hash) }, 'Sign in'));
  }

  // ---- Targets --------------------------------------------------------------
  async function pageTargets() {
    add(main, title('Targets'));
    const err = alertBox();
    const domain = h('input', { name: 'target', required: true, autocomplete: 'off', placeholder: 'example.com', spellcheck: 'false' });
    const method = h('select', { name: 'method' }, h('option', { value: 'dns_txt' }, 'DNS TXT record'), h('option', { value: 'http_file' }, 'HTTP file'));
    const form = h('form', {
      class: 'card', id: 'add-target', onsubmit: async (e) => {
        e.preventDefault();
        clear(err);
        try {
          await api('POST', '/api/targets', { target: domain.value.trim(), method: method.value });
          say('Target added: follow its instructions, then verify it');
          domain.value = '';
          await list();
        } catch (x) { showError(err, x); }
      },
    }, h('h2', {}, 'Add a target'), h('div', { class: 'row' },
      field('Domain', domain, 'A domain you control; its subdomains are in scope too.'),
      field('Ownership proof', method)), err, h('button', { type: 'submit' }, 'Add target'));
    const listBox = h('section', { 'aria-labelledby': 'targets-h' }, h('h2', { id: 'targets-h' }, 'Your targets'));
    add(main, form, listBox);

    async function list() {
      const items = [];
      let next = '/api/targets?limit=200';
      for (let i = 0; next && i < 10; i++) {
        const r = await api('GET', next);
        items.push(...r.data);
        next = r.next;
      }
      add(clear(listBox), h('h2', { id: 'targets-h' }, 'Your targets'));
      if (!items.length) { add(listBox, h('p', {}, 'No targets yet.')); return; }
      add(listBox, h('ul', { class: 'cards' }, items.map(targetCard)));
    }

    function targetCard(t) {
      const box = alertBox();
      const item = h('li', { class: 'card target', 'data-target': t.target },
        h('div', { class: 'row spread' }, h('h3', {}, h('a', { href: '#/targets/' + t.id }, t.target)),
          t.verified ? badge('verified', 'state') : badge('unverified', 'state')),
        h('p', { class: 'muted' }, (t.method === 'dns_txt' ? 'DNS TXT record' : 'HTTP file') + ' · added ' + when(t.created_at) +
          (t.verified ? ' · verified ' + when(t.verified_at) : '')),
        t.verified ? null : h('details', { open: true }, h('summary', {}, t.method === 'dns_txt' ? 'Publish this TXT record, then press Verify' :
          'Serve this file on your site, then press Verify'),
          h('pre', { class: 'instructions' }, t.instructions),
          h('div', { class: 'row' }, copyButton(t.instructions, 'Instructions'), copyButton(t.verification_token, 'Token'))),
        !t.verified && t.verification_error ? h('p', { class: 'hint' }, 'Ownership could not be proved again before a scan (the record or file was gone). ' +
          'Publish it again, then press Verify.') : null,
        box,
        h('div', { class: 'row' },
          t.verified ? h('a', { class: 'button', href: '#/scans/new?target=' + encodeURIComponent(t.target) }, 'Scan ' + t.target) :
            h('button', {
              type: 'button', class: 'verify', onclick: async (e) => {
                e.target.disabled = true;
                clear(box);
                try {
                  await api('POST', '/api/targets/' + encodeURIComponent(t.id) + '/verify');
                  say(t.target + ' is verified');
                  await list();
                } catch (x) { explainVerify(box, t, x); e.target.disabled = false; }
              },
            }, 'Verify ' + t.target),
          h('button', {
            type: 'button', class: 'danger', onclick: async () => {
              if (!(await confirmDialog('Delete ' + t.target + '?', 'Its scans stay in your history, but you will have to verify the domain again to scan it.', 'Delete target'))) return;
              try {
                await api('DELETE', '/api/targets/' + encodeURIComponent(t.id));
                say(t.target + ' deleted');
                await list();
              } catch (x) { showError(box, x); }
            },
          }, 'Delete')));
      return item;
    }
    await list();
  }

  // explainVerify says in plain words why a verification failed; what the
  // check found, as the API words it, follows as the detail. Only a 400 is a
  // verdict on the proof (400, openapi verifyTarget): other errors (rate limit, outage) show as they are.
  function explainVerify(box, t, err) {
    clear(box);
    box.className = 'alert';
    if (err.status !== 400) { showError(box, err); return; }
    box.className = 'alert explain';
    add(box, h('p', {}, t.method === 'dns_txt' ?
      'We did not find the TXT record yet. Check that it is published exactly as shown above; a new DNS record can take a few minutes to appear, so try again shortly.' :
      'We could not read the file yet. Check that your site serves it at the address shown above with status 200 and nothing but the token, then try again.'),
    h('p', { class: 'muted' }, 'What we found: ' + err.message));
  }

  // ---- Scans list -------------------------------------------------------------
  // Issues by severity, new/fixed and duration come from the list records; the
  // filters live in the address (#/scans?status=…&target=…) so a reload or a
  // shared link shows the same list.
  async function pageScans() {
    add(main, title('Scans'), h('p', {}, h('a', { class: 'button', href: '#/scans/new' }, 'New scan')));
    const wanted = new URLSearchParams(location.hash.split('?')[1] || '');
    const status = h('select', { name: 'status' }, h('option', { value: '' }, 'Any status'),
      ['queued', 'running', 'completed', 'failed', 'cancelled'].map((s) => h('option', { value: s, selected: wanted.get('status') === s }, s)));
    const target = h('input', { name: 'target', placeholder: 'example.com', autocomplete: 'off', spellcheck: 'false', value: wanted.get('target') || '' });
    const err = alertBox();
    const table = h('div', { class: 'table-wrap' });
    const more = h('div', { class: 'row' });
    let next = null;
    const filters = h('form', {
      class: 'row end filters', role: 'search', 'aria-label': 'Filter scans', onsubmit: (e) => { e.preventDefault(); load(true); },
    }, field('Status', status), field('Target', target), h('button', { type: 'submit', class: 'secondary' }, 'Filter'));
    status.addEventListener('change', () => load(true));
    add(main, filters, err, table, more);
    const tbody = h('tbody');
    add(table, h('table', { class: 'stack', id: 'scans' }, h('caption', { class: 'sr-only' }, 'Your scans, newest first'),
      h('thead', {}, h('tr', {}, ['Target', 'Scan', 'Status', 'Risk', 'Open issues', 'Since previous', 'Duration', 'Credits', 'Created'].map((c) => h('th', { scope: 'col' }, c)))),
      tbody));

    let seq = 0;
    async function load(reset) {
      clear(err);
      const mine = ++seq; // only the latest request draws: filters can change mid-flight
      if (reset) {
        const q = new URLSearchParams();
        if (status.value) q.set('status', status.value);
        if (target.value.trim()) q.set('target', target.value.trim());
        const hash = '#/scans' + (q.toString() ? '?' + q.toString() : '');
        if (location.hash !== hash) history.replaceState(null, '', hash);
        q.set('limit', '20');
        next = '/api/scans?' + q.toString();
      }
      try {
        const r = await api('GET', next);
        if (mine !== seq) return;
        if (reset) clear(tbody);
        for (const s of r.data) add(tbody, scanRow(s));
        if (reset && !r.data.length) add(tbody, h('tr', {}, h('td', { colspan: 9 }, status.value || target.value.trim() ? 'No scans match.' :
          ['No scans yet. ', h('a', { href: '#/scans/new' }, 'Start your first scan.')])));
        next = r.next;
        clear(more);
        if (next) add(more, h('button', { type: 'button', class: 'secondary', onclick: () => load(false) }, 'Next page'));
      } catch (x) { showError(err, x); }
    }
    await load(true);
  }

  function scanRow(s) {
    return h('tr', { 'data-scan': s.id },
      h('td', {}, h('a', { href: '#/scans/' + s.id }, s.target)), h('td', { 'data-label': 'Scan', class: 'nw' }, s.scan_type + ' · ' + s.tier),
      h('td', {}, badge(s.status, 'status')),
      h('td', { 'data-label': 'Risk', class: 'risk' }, s.risk_rating ? badge(s.risk_rating, 'sev') : '—'),
      h('td', { 'data-label': 'Open issues', class: 'open-issues' }, s.issues_by_severity ? sevCounts(s.issues_by_severity) : s.issues_count ? s.issues_count + ' so far' : '—'),
      h('td', { 'data-label': 'Since previous', class: 'changes' }, changeText(s)),
      h('td', { 'data-label': 'Duration', class: 'nw duration' }, duration(s)),
      h('td', { 'data-label': 'Credits', class: 'nw' }, s.credits_used + ' / ' + s.max_credits), h('td', { 'data-label': 'Created' }, when(s.created_at)));
  }

  // sevCounts renders issues by severity as small badges, most severe first.
  function sevCounts(counts) {
    if (!counts) return h('span', { class: 'muted' }, '—');
    const parts = SEVERITIES.filter((s) => counts[s] > 0);
    if (!parts.length) return h('span', { class: 'muted' }, 'none open');
    return h('span', { class: 'sevs' }, parts.map((s) => h('span', { class: 'badge sev-' + s, 'data-sev': s }, counts[s] + ' ' + s)));
  }

  // changeText is the new/fixed line of a completed scan record.
  function changeText(sc) {
    if (!sc || sc.new_issues_count == null) return '—';
    if (!sc.baseline_scan_id) return 'first scan';
    return sc.new_issues_count + ' new · ' + sc.fixed_issues_count + ' fixed';
  }

  // elapsed writes a span of milliseconds as "45 s", "3 min 05 s" or "1 h 02 min".
  function elapsed(ms) {
    const sec = Math.max(0, Math.round(ms / 1000));
    if (sec < 60) return sec + ' s';
    const min = Math.floor(sec / 60);
    if (min < 60) return min + ' min ' + String(sec % 60).padStart(2, '0') + ' s';
    return Math.floor(min / 60) + ' h ' + String(min % 60).padStart(2, '0') + ' min';
  }
  function duration(s) {
    if (!s.started_at) return '—';
    const end = s.finished_at ? Date.parse(s.finished_at) : Date.now();
    return (s.finished_at ? '' : 'running ') + elapsed(end - Date.parse(s.started_at));
  }

  // ---- New scan -----------------------------------------------------------------
  async function pageNewScan() {
    const plan = PLANS[me.plan] || PLANS.free;
    add(main, title('New scan'));
    const targets = (await api('GET', '/api/targets?limit=200')).data.filter((t) => t.verified);
    if (!targets.length) {
      add(main, h('p', {}, 'Scans need a verified target. ', h('a', { href: '#/targets' }, 'Add and verify one first.')));
      return;
    }
    const wanted = new URLSearchParams(location.hash.split('?')[1] || '').get('target');
    const target = h('select', { name: 'target' }, targets.map((t) => h('option', { value: t.target, selected: t.target === wanted }, t.target)));
    const type = h('select', { name: 'scan_type' }, ['full', 'web', 'network', 'ssl', 'vuln', 'code'].map((v) => h('option', { value: v, selected: v === 'web' }, v)));
    const tier = h('select', { name: 'tier' }, ['quick', 'standard', 'deep'].map((v) => h('option', { value: v }, v + ' (up to ' + CEILING[v] + ' credits)' +
      (plan.tiers.includes(v) ? '' : ', needs the ' + planFor((p) => p.tiers.includes(v)) + ' plan'))));
    const credits = h('input', { name: 'max_credits', type: 'number', min: 1, max: 50, step: 1, inputmode: 'numeric', value: 50 });
    const callback = h('input', { name: 'callback_url', type: 'url', placeholder: 'https://ci.example.com/hooks/secscan', disabled: !plan.webhooks });
    const tierHint = h('p', { class: 'hint', id: id('hint') });
    const err = alertBox();
    function sync() {
      for (const opt of tier.options) {
        const offPlan = !plan.tiers.includes(opt.value);
        opt.disabled = offPlan || (type.value === 'full' && opt.value === 'quick');
      }
      if (tier.selectedOptions[0].disabled) tier.value = [...tier.options].find((o) => !o.disabled).value;
      const notes = [];
      if (type.value === 'full') notes.push('A full scan needs the standard or deep tier.');
      if (!plan.tiers.includes('deep')) notes.push('The deep tier needs the ' + planFor((p) => p.tiers.includes('deep')) + ' plan (yours: ' + me.plan + ').');
      tierHint.textContent = notes.join(' ');
      credits.max = CEILING[tier.value];
      if (Number(credits.value) > CEILING[tier.value] || credits.dataset.auto !== 'no') credits.value = CEILING[tier.value];
    }
    credits.addEventListener('input', () => { credits.dataset.auto = 'no'; });
    type.addEventListener('change', sync);
    tier.addEventListener('change', sync);
    tier.setAttribute('aria-describedby', tierHint.id);
    const form = h('form', {
      class: 'card', id: 'new-scan', onsubmit: async (e) => {
        e.preventDefault();
        clear(err);
        const body = { target: target.value, scan_type: type.value, tier: tier.value, max_credits: Number(credits.value) };
        if (callback.value.trim()) body.callback_url = callback.value.trim();
        const idempotencyKey = crypto.randomUUID();
        try {
          // The key makes a retry after a 429 safe: a repeat returns the first scan.
          const r = await api('POST', '/api/scans', body, false, { idempotencyKey: idempotencyKey });
          location.hash = '#/scans/' + r.data.id;
        } catch (x) { showError(err, x); }
      },
    }, field('Target', target), h('div', { class: 'row' }, field('Scan type', type), h('div', { class: 'field' },
      h('label', { for: tier.id = id('f') }, 'Tier'), tier, tierHint)),
    field('Max credits', credits, 'The scan stops when the next step would pass this budget.'),
    field('Callback URL (optional)', callback, plan.webhooks ? 'An https URL that receives one signed webhook when the scan ends.' :
      'Webhooks need the Starter plan: on the Free plan a callback URL is ignored.'),
    err, h('button', { type: 'submit' }, 'Start scan'));
    add(main, form);
    sync();
  }

  // ---- One scan: live view and results ----------------------------------------------
  async function pageScan(scanId, rawKey) {
    const heading = title('Scan');
    const live = h('div', { class: 'live', 'aria-live': 'polite' });
    const err = alertBox();
    const head = h('section', { class: 'card', 'aria-label': 'Status' });
    // Newest step first: a reversed list numbers them from the latest down.
    const steps = h('ol', { class: 'steps', id: 'steps', reversed: true });
    const noSteps = h('p', { class: 'muted' }, 'No steps yet.');
    const stepsBox = h('section', { 'aria-labelledby': 'steps-h' }, h('h2', { id: 'steps-h' }, 'Agent steps, newest first'), noSteps, steps);
    const clock = liveClock(head);
    const results = h('div', { id: 'results' });
    const panel = issuePanel(scanId);
    add(main, heading, err, head, live, results, stepsBox, panel.el);
    const shown = new Set();
    let rendered = '';
    let waits = 0;
    let latest = null; // the scan as last read
    let wanted = rawKey ? decodeKey(rawKey) : null; // the issue the address names
    scanView = {
      id: scanId, root: head, show(key) {
        const fromTable = !panel.open;
        wanted = key;
        if (!key) panel.hide();
        else if (latest) panel.show(key, latest, fromTable);
      },
    };

    async function poll() {
      let scan;
      try {
        scan = (await api('GET', '/api/scans/' + encodeURIComponent(scanId))).data;
        clear(err);
      } catch (x) {
        showError(err, x);
        if (x.status === 404 || x.status === 401) return;
        pollTimer = setTimeout(poll, 5000);
        return;
      }
      if (!main.contains(head)) return; // the user went elsewhere
      heading.textContent = 'Scan of ' + scan.target;
      document.title = 'Scan of ' + scan.target + ' · secscan';
      renderHead(scan);
      for (const st of scan.agent_steps || []) {
        if (shown.has(st.seq)) continue;
        shown.add(st.seq);
        steps.prepend(stepItem(st));
      }
      noSteps.hidden = shown.size > 0;
      const state = scan.status + ':' + (scan.webhook_deliveries || []).length;
      latest = scan;
      if (TERMINAL.includes(scan.status) && rendered !== state) {
        rendered = state;
        const n = issuesOf(scan).length;
        add(clear(live), scan.status === 'completed' ? 'Scan completed: ' + n + (n === 1 ? ' issue' : ' issues') + ' from ' + scan.findings_count + ' findings.' : 'Scan ' + scan.status + '.');
        renderResults(scan);
      }
      if (wanted && !panel.open && (TERMINAL.includes(scan.status) || issuesOf(scan).some((i) => i.key === wanted))) panel.show(wanted, scan, false);
      if (!TERMINAL.includes(scan.status)) {
        add(clear(live), scan.status === 'queued' ? 'Waiting to start…' : 'Running: ' + shown.size + ' steps so far.');
        pollTimer = setTimeout(poll, 1500);
      } else if (scan.callback_url && (scan.webhook_deliveries || []).length < 1 && waits < 20) {
        waits += 1;
        pollTimer = setTimeout(poll, 3000); // the webhook is still on its way
      }
    }

    function renderHead(scan) {
      clear(head);
      const box = alertBox();
      const running = !TERMINAL.includes(scan.status);
      head.classList.toggle('live-head', running);
      clock.set(scan);
      add(head, h('div', { class: 'row spread' }, h('p', {}, badge(scan.status, 'status'), ' ', scan.scan_type + ' scan, ' + scan.tier + ' tier'),
        !TERMINAL.includes(scan.status) && !scan.cancel_requested ? h('button', {
          type: 'button', class: 'danger', id: 'cancel-scan', onclick: async () => {
            if (!(await confirmDialog('Cancel this scan?', 'The agent stops after its current step; findings so far are kept.', 'Cancel scan'))) return;
            try {
              await api('DELETE', '/api/scans/' + encodeURIComponent(scan.id));
              say('Cancellation requested');
              clearTimeout(pollTimer);
              poll();
            } catch (x) { showError(box, x); }
          },
        }, 'Cancel scan') : null),
      box,
      h('dl', { class: 'facts' },
        running ? [h('dt', {}, 'Now'), h('dd', { id: 'now-running' }, nowRunning(scan))] : null,
        h('dt', {}, running ? 'Elapsed' : 'Duration'), h('dd', { id: 'elapsed' }, clock.el),
        h('dt', {}, 'Findings'), h('dd', { id: 'live-findings' }, findingCounts(scan)),
        h('dt', {}, 'Credits'), h('dd', { id: 'live-credits' }, h('meter', { min: 0, max: scan.max_credits, value: scan.credits_used, 'aria-label': 'Credits used' }),
          ' ' + scan.credits_used + ' of ' + scan.max_credits + ' used'),
        running ? null : [h('dt', {}, 'Started'), h('dd', {}, when(scan.started_at)), h('dt', {}, 'Finished'), h('dd', {}, when(scan.finished_at))],
        scan.cancel_requested && running ? [h('dt', {}, 'Cancel'), h('dd', {}, 'requested')] : null,
        scan.callback_url ? [h('dt', {}, 'Webhook to'), h('dd', { class: 'mono' }, scan.callback_url)] : null),
      scan.error ? h('p', { class: 'alert', role: 'alert' }, scan.error) : null);
    }

    function stepItem(st) {
      return h('li', { class: 'step', 'data-tool': st.tool, 'data-seq': st.seq },
        h('div', { class: 'row spread' }, h('strong', {}, st.tool), st.status ? badge(st.status, 'step') : null),
        h('p', {}, st.outcome),
        st.reasoning ? h('p', { class: 'muted' }, 'Why: ' + st.reasoning) : null,
        h('p', { class: 'muted' }, st.credits + ' credits · ' + st.findings_added + ' findings · ' + (st.duration_ms != null ? st.duration_ms + ' ms' : '') +
          (st.model ? ' · ' + st.model.id : '')));
    }

    function renderResults(scan) {
      clear(results);
      const issues = issuesOf(scan);
      if (scan.status !== 'completed') {
        if (issues.length) add(results, issuesSection(scan, issues));
        add(results, deliveriesSection(scan));
        return;
      }
      const sum = scan.summary || {};
      add(results, 
        h('section', { class: 'card', 'aria-labelledby': 'sum-h' }, h('h2', { id: 'sum-h' }, 'Summary'),
          h('p', {}, 'Risk rating: ', badge(sum.risk_rating || 'none', 'sev')),
          h('p', { class: 'narrative' }, sum.summary || ''),
          (sum.attack_chains || []).length ? [h('h3', {}, 'Attack chains'), h('ol', {}, sum.attack_chains.map((c) => h('li', {}, c)))] : null),
        changesSection(scan), reportsSection(scan), severityChart(issues), issuesSection(scan, issues), surfaceSection(scan.surface), deliveriesSection(scan));
    }

    function reportsSection(scan) {
      const plan = PLANS[me.plan] || PLANS.free;
      const box = alertBox();
      return h('section', { class: 'card', 'aria-labelledby': 'rep-h' }, h('h2', { id: 'rep-h' }, 'Reports'),
        h('div', { class: 'row' }, FORMATS.map((f) => plan.formats.includes(f.ext) ?
          h('button', { type: 'button', class: 'secondary', 'data-format': f.ext, onclick: () => download(scan, f).catch((x) => showError(box, x)) }, 'Download ' + f.label) :
          h('span', { class: 'muted locked', 'data-format': f.ext }, f.label + ' needs the ' + f.plan + ' plan'))),
        me.plan === 'free' ? h('p', { class: 'hint' }, 'Free-plan reports carry a demo watermark and expire after 7 days.') : null, box);
    }

    await poll();
  }

  // changesSection is what changed since the baseline scan: the counts, and
  // the issues this scan tested again and did not find.
  function changesSection(scan) {
    if (!scan.baseline_scan_id) return null;
    const fixed = scan.fixed_issues || [];
    return h('section', { class: 'card', id: 'changes', 'aria-labelledby': 'chg-h' }, h('h2', { id: 'chg-h' }, 'Since the previous scan'),
      h('p', {}, changeText(scan) + ' since ', h('a', { href: '#/scans/' + scan.baseline_scan_id }, 'the previous scan'),
        ' · ', h('a', { href: '#/targets/' + scan.target_id }, 'all of ' + scan.target + ' over time')),
      fixed.length ? h('ul', { class: 'fixed-list' }, fixed.map((f) => h('li', { 'data-issue': f.key }, badge(f.severity, 'sev'), ' ', f.title,
        ' ', h('span', { class: 'badge change-fixed' }, 'fixed')))) : null);
  }

  // nowRunning says what a running scan does now: the record's current_step
  // while a step runs; between steps, the planning of the next one.
  function nowRunning(scan) {
    const done = scan.agent_steps || [];
    if (scan.status === 'queued') return 'waiting to start';
    const cur = scan.current_step;
    if (cur) return 'step ' + cur.seq + ': ' + cur.tool;
    const last = done[done.length - 1];
    return 'step ' + (last ? last.seq + 1 : 1) + ': choosing the next tool' + (last ? ' (after ' + last.tool + ')' : '');
  }

  // findingCounts is the running count of the scan's findings by severity.
  function findingCounts(scan) {
    const counts = {};
    for (const f of scan.findings || []) counts[f.severity] = (counts[f.severity] || 0) + 1;
    return (scan.findings || []).length ? sevCounts(counts) : h('span', { class: 'muted' }, 'none yet');
  }

  // liveClock shows the time since the scan started, ticking each second
  // while it runs and while its page is on screen; the duration once ended.
  function liveClock(root) {
    const el = h('span', { class: 'nw' }, '—');
    let scan = null;
    const draw = () => {
      if (!scan || !scan.started_at) { el.textContent = '—'; return; }
      const end = scan.finished_at ? Date.parse(scan.finished_at) : Date.now();
      el.textContent = elapsed(end - Date.parse(scan.started_at));
    };
    const timer = setInterval(() => {
      if (!main.contains(root) || (scan && TERMINAL.includes(scan.status))) clearInterval(timer);
      else draw();
    }, 1000);
    return { el, set(s) { scan = s; draw(); } };
  }

  // ---- Issues: one weakness wherever it occurs (CONTRACT "Checks and issues") ----
  const CONFIDENCES = ['certain', 'firm', 'tentative'];
  const rank = (list, v) => { const i = list.indexOf(v); return i < 0 ? list.length : i; };
  const confidenceOf = (f) => f.confidence || (f.cve ? 'tentative' : 'certain');
  function issueKeyOf(f) {
    if (f.issue) return f.issue;
    const cve = f.cve ? String(f.cve).trim().toUpperCase() : '';
    return (f.check || 'unclassified') + (cve ? ':' + cve : '');
  }
  function compareIssues(a, b) {
    const cvss = (x) => (x.cvss == null ? -1 : x.cvss);
    return rank(SEVERITIES, a.severity) - rank(SEVERITIES, b.severity) || rank(CONFIDENCES, a.confidence) - rank(CONFIDENCES, b.confidence) ||
      cvss(b) - cvss(a) || b.count - a.count || (a.title < b.title ? -1 : a.title > b.title ? 1 : 0);
  }
  // groupIssues mirrors scans.GroupIssues, for records without `issues`: one
  // issue per key, the highest severity and confidence, the wording of its
  // most severe finding.
  function groupIssues(findings) {
    const byKey = new Map();
    for (const f of findings) {
      const key = issueKeyOf(f);
      let is = byKey.get(key);
      if (!is) {
        is = { key, check: f.check || null, cve: f.cve || null, severity: f.severity, confidence: confidenceOf(f), cvss: null, count: 0, locations: [], change: null, triage: null, lead: f };
        byKey.set(key, is);
      }
      is.count += 1;
      is.locations.push({ finding_id: f.id, host: f.host, port: f.port });
      if (rank(SEVERITIES, f.severity) < rank(SEVERITIES, is.severity)) { is.severity = f.severity; is.lead = f; }
      if (rank(CONFIDENCES, confidenceOf(f)) < rank(CONFIDENCES, is.confidence)) is.confidence = confidenceOf(f);
      if (f.cvss != null && (is.cvss == null || f.cvss > is.cvss)) is.cvss = f.cvss;
    }
    return [...byKey.values()].map(({ lead: f, ...is }) => Object.assign(is, {
      title: f.title, category: f.category, cwe: f.cwe || null, description: f.description, remediation: f.remediation, references: f.references || [],
    }));
  }
  // issuesOf is the record's issues; findings that none of them lists (a
  // record from before issues, a finding recorded late) are grouped here.
  function issuesOf(scan) {
    const listed = Array.isArray(scan.issues) ? scan.issues.map((is) => Object.assign({}, is, { locations: (is.locations || []).slice() })) : [];
    const seen = new Set(listed.flatMap((is) => is.locations.map((l) => l.finding_id)));
    for (const is of groupIssues((scan.findings || []).filter((f) => !seen.has(f.id)))) {
      const same = listed.find((x) => x.key === is.key);
      if (same) { same.locations.push(...is.locations); same.count = same.locations.length; } else listed.push(is);
    }
    return listed.sort(compareIssues);
  }
  const hostsOf = (is) => [...new Set(is.locations.map((l) => l.host).filter(Boolean))];
  const where = (l) => l.host + (l.port != null ? ':' + l.port : '');
  const issueHref = (scanId, key) => '#/scans/' + scanId + '/issues/' + encodeURIComponent(key);
  const words = (v) => String(v || '').replace(/_/g, ' ');
  // unbroken keeps hyphenated words (CVE-2021-41773, X-Frame-Options) whole:
  // a line may break between words, never at their hyphens.
  const unbroken = (text) => String(text).split(/(\S*-\S*)/).map((part, i) => (i % 2 ? h('span', { class: 'nw' }, part) : part));
  function decodeKey(raw) { try { return decodeURIComponent(raw); } catch (_) { return raw; } }

  function severityChart(issues) {
    const counts = SEVERITIES.map((s) => issues.filter((f) => f.severity === s).length);
    const top = Math.max(1, ...counts);
    const rowH = 26;
    const chart = svg('svg', { viewBox: '0 0 320 ' + rowH * 5, width: '100%', role: 'img', 'aria-labelledby': 'chart-h chart-d', class: 'chart' },
      SEVERITIES.map((s, i) => [
        svg('text', { x: 0, y: i * rowH + 17, class: 'chart-label' }, s),
        svg('rect', { x: 80, y: i * rowH + 4, height: 18, width: Math.max(2, (200 * counts[i]) / top), class: 'bar sev-' + s }),
        svg('text', { x: 88 + Math.max(2, (200 * counts[i]) / top), y: i * rowH + 17, class: 'chart-label' }, String(counts[i])),
      ]));
    return h('section', { class: 'card', 'aria-labelledby': 'chart-h' }, h('h2', { id: 'chart-h' }, 'Issues by severity'),
      h('p', { id: 'chart-d', class: 'sr-only' }, SEVERITIES.map((s, i) => s + ' ' + counts[i]).join(', ')), chart);
  }

  // The issues table: one row per issue, its title a link to the issue's own
  // address (the side panel); sortable, filtered, searchable.
  function issuesSection(scan, issues) {
    const findings = new Map((scan.findings || []).map((f) => [f.id, f]));
    const distinct = (values) => [...new Set(values.filter((v) => v !== null && v !== undefined && v !== ''))].sort();
    const sel = (name, label, values) => h('select', { name, 'aria-label': label }, h('option', { value: '' }, 'Any ' + label.toLowerCase()), values.map((v) => h('option', { value: v }, v)));
    const fSev = sel('severity', 'Severity', SEVERITIES.filter((s) => issues.some((i) => i.severity === s)));
    const fCat = sel('category', 'Category', distinct(issues.map((i) => i.category)));
    const fHost = sel('host', 'Host', distinct(issues.flatMap(hostsOf)));
    const fConf = sel('confidence', 'Confidence', CONFIDENCES.filter((c) => issues.some((i) => i.confidence === c)));
    const search = h('input', { type: 'search', name: 'q', 'aria-label': 'Search issues', placeholder: 'Search' });
    const tbody = h('tbody');
    const count = h('p', { class: 'muted', 'aria-live': 'polite' });
    const cols = [['severity', 'Severity'], ['title', 'Issue'], ['count', 'Count', 'num'], ['hosts', 'Hosts'], ['category', 'Category'], ['confidence', 'Confidence']];
    if (issues.some((i) => i.change)) cols.push(['change', 'Change']);
    let sortKey = 'severity';
    let asc = true;
    const heads = cols.map(([key, label, cls]) => {
      const th = h('th', { scope: 'col', class: cls, 'aria-sort': key === sortKey ? 'ascending' : 'none' },
        h('button', { type: 'button', class: 'sort', onclick: () => { asc = sortKey === key ? !asc : key !== 'count'; sortKey = key; draw(); } }, label));
      th.dataset.key = key;
      return th;
    });
    function value(i, key) {
      if (key === 'severity') return rank(SEVERITIES, i.severity);
      if (key === 'confidence') return rank(CONFIDENCES, i.confidence);
      if (key === 'count') return i.count;
      if (key === 'hosts') return hostsOf(i)[0] || '';
      const v = i[key];
      return v === null || v === undefined ? '' : v;
    }
    function text(i) {
      return [i.title, i.key, i.cwe, i.description, ...hostsOf(i), ...i.locations.map((l) => (findings.get(l.finding_id) || {}).evidence)];
    }
    function draw() {
      const q = search.value.trim().toLowerCase();
      const rows = issues.filter((i) => (!fSev.value || i.severity === fSev.value) && (!fCat.value || i.category === fCat.value) &&
        (!fHost.value || hostsOf(i).includes(fHost.value)) && (!fConf.value || i.confidence === fConf.value) &&
        (!q || text(i).some((v) => v && String(v).toLowerCase().includes(q))));
      rows.sort((a, b) => {
        const x = value(a, sortKey);
        const y = value(b, sortKey);
        const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
        return asc ? c : -c;
      });
      for (const th of heads) th.setAttribute('aria-sort', th.dataset.key === sortKey ? (asc ? 'ascending' : 'descending') : 'none');
      clear(tbody);
      for (const i of rows) {
        const hosts = hostsOf(i);
        add(tbody, h('tr', { 'data-issue': i.key },
          h('td', {}, badge(i.severity, 'sev')),
          h('td', { class: 'title' }, h('a', { href: issueHref(scan.id, i.key), 'data-issue': i.key }, unbroken(i.title)),
            i.triage ? [' ', h('span', { class: 'badge triage' }, words(i.triage.state))] : null),
          h('td', { class: 'num' }, String(i.count)),
          h('td', { class: 'hosts' }, hosts.slice(0, 3).map((x, n) => [n ? ', ' : '', h('span', { class: 'nw' }, x)]),
            hosts.length > 3 ? [' ', h('span', { class: 'nw muted' }, '+' + (hosts.length - 3) + ' more')] : null),
          h('td', { class: 'nw' }, i.category || '—'), h('td', { class: 'nw' }, i.confidence || '—'),
          cols.length > 6 ? h('td', {}, i.change ? badge(i.change, 'change') : '—') : null));
      }
      if (!rows.length) add(tbody, h('tr', {}, h('td', { colspan: cols.length }, issues.length ? 'No issues match.' : 'No issues found.')));
      count.textContent = rows.length + ' of ' + issues.length + (issues.length === 1 ? ' issue · ' : ' issues · ') + findings.size + (findings.size === 1 ? ' finding' : ' findings');
    }
    for (const el of [fSev, fCat, fHost, fConf]) el.addEventListener('change', draw);
    search.addEventListener('input', draw);
    const section = h('section', { class: 'card', 'aria-labelledby': 'issues-h' }, h('h2', { id: 'issues-h' }, 'Issues'),
      h('div', { class: 'row filters', role: 'search', 'aria-label': 'Filter issues' }, fSev, fCat, fHost, fConf, search), count,
      h('div', { class: 'table-wrap' }, h('table', { id: 'issues' }, h('caption', { class: 'sr-only' }, 'Issues of this scan; open one for its locations and evidence'),
        h('thead', {}, h('tr', {}, heads)), tbody)));
    draw();
    return section;
  }

  // proofBlock shows the exchange that proved a finding (text only), with a
  // copy button, and for an HTTP proof the curl command that repeats it.
  function proofBlock(p) {
    const full = 'Request:\n' + p.request + '\n\nResponse:\n' + p.response + (p.curl ? '\n\nRepeat with:\n' + p.curl : '');
    return h('details', { class: 'proof' }, h('summary', {}, p.kind === 'http' ? 'Proof: the HTTP exchange' : 'Proof: the protocol transcript'),
      h('p', { class: 'muted' }, 'Observed ' + when(p.observed_at)),
      h('pre', { class: 'evidence' }, p.request), h('pre', { class: 'evidence' }, p.response),
      p.curl ? [h('p', {}, 'Repeat it with:'), h('pre', { class: 'mono evidence' }, p.curl), copyButton(p.curl, 'Curl command')] : null,
      copyButton(full, 'Proof'));
  }

  // retestBlock re-runs the checks behind an issue on its locations
  // (POST …/retest) and follows the retest until it ends, saying per
  // location whether the weakness is still there. While it runs, Cancel
  // asks for it to stop (DELETE /api/retests/<id>): the calls not yet made
  // are neither made nor charged, the results already in are kept.
  function retestBlock(scanId, is) {
    const status = h('p', { id: 'retest-status', role: 'status', 'aria-live': 'polite' });
    const results = h('ul', { id: 'retest-results', class: 'locations' });
    const box = alertBox();
    const outcome = { reproduced: 'still there', not_reproduced: 'not found any more', error: 'could not be tested' };
    let running = null; // the id of the retest being followed
    let asked = false; // whether this page asked for its cancellation (a queued one ends at once, unflagged)
    const cancel = h('button', { type: 'button', id: 'retest-cancel', class: 'danger', hidden: true, onclick: async () => {
      cancel.disabled = true;
      try {
        await api('DELETE', '/api/retests/' + encodeURIComponent(running));
        asked = true;
        clear(status); status.append('Cancelling: the calls under way finish, no new one starts…');
      } catch (err) {
        showError(box, err);
        cancel.disabled = false;
      }
    } }, 'Cancel retest');
    const showResults = (rt) => add(results, (rt.results || []).map((x) => h('li', { 'data-outcome': x.outcome }, h('span', { class: 'mono' }, where(x)), ' — ',
      h('strong', {}, outcome[x.outcome] || x.outcome), x.detail ? ': ' + x.detail : '', x.proof ? proofBlock(x.proof) : null)));
    const button = h('button', { type: 'button', id: 'retest', class: 'secondary', onclick: async () => {
      button.disabled = true;
      asked = false;
      clear(box); clear(results);
      try {
        let rt = (await api('POST', '/api/scans/' + encodeURIComponent(scanId) + '/issues/' + encodeURIComponent(is.key) + '/retest')).data;
        running = rt.id;
        for (let i = 0; i < 150 && (rt.status === 'queued' || rt.status === 'running'); i++) {
          cancel.hidden = false;
          if (!rt.cancel_requested && !asked) { clear(status); status.append('Retest ' + rt.status + '…'); }
          await new Promise((r) => setTimeout(r, 2000));
          rt = (await api('GET', '/api/retests/' + encodeURIComponent(rt.id))).data;
        }
        clear(status);
        if (rt.status === 'failed' && (rt.cancel_requested || asked)) {
          status.append('Retest cancelled. ' + rt.credits_used + ' credits for the calls already made.');
          showResults(rt);
        } else if (rt.status === 'failed') status.append('The retest failed: ' + (rt.error || 'no reason given') + '.');
        else if (rt.status !== 'completed') status.append('The retest is still running; look again later.');
        else {
          const fixed = rt.results.length > 0 && rt.results.every((x) => x.outcome === 'not_reproduced');
          status.append((fixed ? 'Fixed: not found at any location.' : 'Retested.') + ' ' + rt.credits_used + ' credits.');
          showResults(rt);
        }
      } catch (err) {
        clear(status);
        showError(box, err);
      } finally {
        button.disabled = false;
        cancel.hidden = true;
        cancel.disabled = false;
        running = null;
      }
    } }, 'Retest this issue');
    return h('div', { class: 'retest' }, h('p', { class: 'row' }, button, cancel,
      h('span', { class: 'muted' }, 'Re-runs only the checks behind this issue on its locations; it costs their credits.')), box, status, results);
  }

  // The issue panel: a side sheet with its own address,
  // #/scans/<id>/issues/<key>. It is a modal <dialog>: focus moves into it
  // and stays there; Escape, Close and the browser's Back close it.
  function issuePanel(scanId) {
    const dlg = h('dialog', { id: 'issue-panel', class: 'sheet', 'aria-labelledby': 'issue-h' });
    let back = false; // opened from the table: closing goes back in history
    let opener = null;
    function close() {
      if (back) history.back();
      else location.replace('#/scans/' + scanId);
    }
    let hiding = false;
    dlg.addEventListener('cancel', (e) => { e.preventDefault(); close(); });
    // Chromium closes a dialog on a repeated Escape without asking: follow.
    // (The close event comes a task later than hide's dlg.close().)
    dlg.addEventListener('close', () => { if (hiding) hiding = false; else close(); });
    const link = (href, text) => h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, text);
    const fact = (label, v) => (v === null || v === undefined || v === '' ? null : [h('dt', {}, label), h('dd', {}, v)]);
    function render(key, scan) {
      const is = issuesOf(scan).find((x) => x.key === key);
      const head = (text) => h('div', { class: 'sheet-head' }, h('h2', { id: 'issue-h', tabindex: '-1' }, text),
        h('button', { type: 'button', class: 'secondary', onclick: close }, 'Close'));
      clear(dlg);
      if (!is) {
        add(dlg, head('Issue not found'), h('div', { class: 'sheet-body' }, h('p', {}, 'This scan has no issue ', h('span', { class: 'mono' }, key), '.')));
        return;
      }
      const findings = new Map((scan.findings || []).map((f) => [f.id, f]));
      const refs = (is.references || []).filter((r) => /^https?:\/\//i.test(r));
      const cwe = /^CWE-(\d+)$/.exec(is.cwe || '');
      const cve = /^CVE-\d{4}-\d+$/.test(is.cve || '') ? is.cve : null;
      add(dlg, head(unbroken(is.title)), h('div', { class: 'sheet-body' },
        h('p', { class: 'row' }, badge(is.severity, 'sev'), is.change ? badge(is.change, 'change') : null,
          is.triage ? h('span', { class: 'badge triage' }, words(is.triage.state)) : null),
        is.triage && is.triage.reason ? h('p', { class: 'muted' }, 'Triage: ' + is.triage.reason) : null,
        h('dl', { class: 'facts' },
          fact('Check', is.check ? h('span', { class: 'mono' }, is.check) : null), fact('Category', is.category), fact('Confidence', is.confidence),
          fact('CWE', cwe ? link('https://cwe.mitre.org/data/definitions/' + cwe[1] + '.html', is.cwe) : is.cwe),
          fact('CVE', cve ? link('https://nvd.nist.gov/vuln/detail/' + cve, cve) : is.cve),
          fact('CVSS', is.cvss == null ? null : String(is.cvss))),
        scan.status === 'completed' ? retestBlock(scanId, is) : null,
        h('h3', {}, is.count === 1 ? '1 location' : is.count + ' locations'),
        h('ul', { class: 'locations' }, is.locations.map((l, n) => {
          const f = findings.get(l.finding_id) || {};
          return h('li', { 'data-finding': l.finding_id },
            h('details', { open: n < 3 }, h('summary', { class: 'mono' }, where(l)),
              f.evidence ? h('pre', { class: 'evidence' }, f.evidence) : h('p', { class: 'muted' }, 'No evidence recorded.'),
              f.proof ? proofBlock(f.proof) : null));
        })),
        h('h3', {}, 'Description'), h('p', {}, is.description),
        h('h3', {}, 'Remediation'), h('p', { class: 'prewrap' }, is.remediation),
        refs.length ? [h('h3', {}, 'References'), h('ul', {}, refs.map((r) => h('li', {}, link(r, r))))] : null));
    }
    return {
      el: dlg,
      get open() { return dlg.open; },
      show(key, scan, fromTable) {
        if (!dlg.open) {
          back = fromTable;
          opener = document.activeElement;
        }
        render(key, scan);
        if (!dlg.open) dlg.showModal();
        dlg.querySelector('#issue-h').focus();
      },
      hide() {
        if (!dlg.open) return;
        hiding = true;
        dlg.close();
        const row = document.querySelector('#issues a[data-issue="' + CSS.escape((opener && opener.dataset && opener.dataset.issue) || '') + '"]');
        if (row) row.focus();
      },
    };
  }

  function surfaceSection(surface) {
    if (!surface) return null;
    // Prose columns (a page title, a list) get room; the others stay narrow.
    const prose = ['Title', 'Technologies', 'Addresses', 'Sources'];
    const table = (caption, headers, rows) => rows.length ? h('div', { class: 'table-wrap' }, h('table', {}, h('caption', {}, caption),
      h('thead', {}, h('tr', {}, headers.map((x) => h('th', { scope: 'col' }, x)))),
      h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c, i) => h('td', { class: prose.includes(headers[i]) ? 'prose' : headers[i] === 'Port' ? 'nw' : null },
        c == null || c === '' ? '—' : String(c)))))))) : null;
    return h('section', { class: 'card', 'aria-labelledby': 'surf-h' }, h('h2', { id: 'surf-h' }, 'Attack surface'),
      table('Hosts', ['Name', 'Addresses', 'Sources'], (surface.hosts || []).map((x) => [x.name, (x.addresses || []).join(', '), (x.sources || []).join(', ')])),
      table('Services', ['Host', 'Address', 'Port', 'Transport', 'Protocol', 'Product', 'Version'],
        (surface.services || []).map((x) => [x.host, x.address, x.port, x.transport, x.protocol, x.product, x.version])),
      table('Web', ['Origin', 'Title', 'Server', 'Technologies'], (surface.web || []).map((x) => [x.origin, x.title, x.server, (x.technologies || []).join(', ')])));
  }

  function deliveriesSection(scan) {
    const ds = scan.webhook_deliveries || [];
    if (!scan.callback_url && !ds.length) return null;
    return h('section', { class: 'card', 'aria-labelledby': 'wh-h' }, h('h2', { id: 'wh-h' }, 'Webhook deliveries'),
      ds.length ? h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, h('tr', {}, ['Attempt', 'At', 'Status', 'Error'].map((x) => h('th', { scope: 'col' }, x)))),
        h('tbody', {}, ds.map((d) => h('tr', {}, h('td', {}, String(d.attempt)), h('td', {}, when(d.at)),
          h('td', {}, d.status_code == null ? '—' : String(d.status_code)), h('td', {}, d.error || '—')))))) :
        h('p', {}, 'No delivery yet.'));
  }

  // ---- Account: tokens and the webhook secret --------------------------------------
  async function pageAccount() {
    const plan = PLANS[me.plan] || PLANS.free;
    add(main, title('Account'),
      h('section', { class: 'card', 'aria-labelledby': 'acct-h' }, h('h2', { id: 'acct-h' }, 'You'),
        h('dl', { class: 'facts' }, h('dt', {}, 'Email'), h('dd', {}, me.email), h('dt', {}, 'Plan'), h('dd', {}, me.plan),
          h('dt', {}, 'Admin'), h('dd', {}, me.is_admin ? 'yes' : 'no'), h('dt', {}, 'Member since'), h('dd', {}, when(me.created_at)))));

    // API tokens
    const tokErr = alertBox();
    const minted = h('div', { id: 'minted' });
    const name = h('input', { name: 'name', required: true, maxlength: 100, autocomplete: 'off', value: 'ci' });
    const days = h('input', { name: 'expires_in_days', type: 'number', min: 1, max: 365, value: 90, inputmode: 'numeric' });
    const tbody = h('tbody');
    const tokens = h('section', { class: 'card', 'aria-labelledby': 'tok-h' }, h('h2', { id: 'tok-h' }, 'API tokens'),
      h('p', {}, 'Tokens let scripts and CI call the API as you, with your plan and limits.'),
      plan.tokens ? null : h('p', { class: 'locked-reason', id: 'token-locked' }, icon('lock'), 'API tokens need the ' + planFor((p) => p.tokens) + ' plan (yours: ' + me.plan + ').'),
      h('form', {
        class: 'row end', id: 'new-token', onsubmit: async (e) => {
          e.preventDefault();
          clear(tokErr);
          try {
            const t = (await api('POST', '/api/tokens', { name: name.value.trim(), expires_in_days: Number(days.value) })).data;
            add(clear(minted), h('div', { class: 'card secret', role: 'region', 'aria-label': 'New token' },
              h('p', {}, h('strong', {}, 'Copy this token now: it is shown only once.'), ' Store it as a secret; it acts as you.'),
              h('pre', { class: 'mono', id: 'new-token-value' }, t.token), copyButton(t.token, 'Token')));
            await list();
          } catch (x) { showError(tokErr, x); }
        },
      }, field('Name', name), field('Expires in (days)', days),
      h('button', { type: 'submit', disabled: !plan.tokens, 'aria-describedby': plan.tokens ? null : 'token-locked' }, 'Create token')),
      tokErr, minted,
      h('div', { class: 'table-wrap' }, h('table', { id: 'tokens', class: 'stack' }, h('thead', {}, h('tr', {}, ['Name', 'Prefix', 'Created', 'Last used', 'Expires', ''].map((x, i) =>
        h('th', { scope: 'col' }, x || h('span', { class: 'sr-only' }, 'Actions' + i))))), tbody)));
    async function list() {
      const r = await api('GET', '/api/tokens?limit=200');
      clear(tbody);
      for (const t of r.data) {
        add(tbody, h('tr', { 'data-token': t.name },
          h('td', {}, t.name), h('td', { class: 'mono', 'data-label': 'Prefix' }, t.token_prefix + '…'), h('td', { 'data-label': 'Created' }, when(t.created_at)),
          h('td', { 'data-label': 'Last used' }, t.last_used_at ? when(t.last_used_at) : 'never'), h('td', { 'data-label': 'Expires' }, t.expires_at ? when(t.expires_at) : 'never'),
          h('td', {}, h('button', {
            type: 'button', class: 'danger', 'aria-label': 'Revoke ' + t.name, onclick: async () => {
              if (!(await confirmDialog('Revoke ' + t.name + '?', 'Requests with this token fail from now on.', 'Revoke token'))) return;
              try {
                await api('DELETE', '/api/tokens/' + encodeURIComponent(t.id));
                say('Token ' + t.name + ' revoked');
                clear(minted);
                await list();
              } catch (x) { showError(tokErr, x); }
            },
          }, 'Revoke'))));
      }
      if (!r.data.length) add(tbody, h('tr', {}, h('td', { colspan: 6 }, 'No tokens.')));
    }

    // Webhook secret
    const whErr = alertBox();
    const secretBox = h('div', { id: 'webhook-secret' });
    function showSecret(s) {
      add(clear(secretBox), h('pre', { class: 'mono', id: 'secret-value' }, s.secret), h('p', { class: 'muted' }, 'Created ' + when(s.created_at)),
        copyButton(s.secret, 'Secret'));
    }
    const webhook = h('section', { class: 'card', 'aria-labelledby': 'wh-h' }, h('h2', { id: 'wh-h' }, 'Webhook signing secret'),
      h('p', {}, 'Each webhook carries an ', h('code', {}, 'X-Service-Signature'), ' header, ', h('code', {}, 't=<timestamp>,v1=<hex>'),
        ': the HMAC-SHA256, with this secret, of the timestamp, a dot and the body. Check it (and that the timestamp is recent) before trusting a webhook; examples/webhook-receiver does.'),
      plan.webhooks ? null : h('p', { class: 'hint' }, 'Webhooks need the Starter plan.'),
      secretBox, whErr,
      h('div', { class: 'row' },
        h('button', {
          type: 'button', class: 'secondary', id: 'reveal-secret', onclick: async () => {
            clear(whErr);
            try { showSecret((await api('GET', '/api/webhook-secret')).data); } catch (x) { showError(whErr, x); }
          },
        }, 'Reveal secret'),
        h('button', {
          type: 'button', class: 'danger', id: 'rotate-secret', onclick: async () => {
            if (!(await confirmDialog('Rotate the webhook secret?', 'The old secret stops working at once: webhooks signed from now on use the new one.', 'Rotate secret'))) return;
            clear(whErr);
            try {
              showSecret((await api('POST', '/api/webhook-secret/rotate')).data);
              say('Webhook secret rotated');
            } catch (x) { showError(whErr, x); }
          },
        }, 'Rotate secret')));
    add(main, tokens, webhook);
    try { await list(); } catch (x) { showError(tokErr, x); }
  }

  // ---- Admin ---------------------------------------------------------------------------
  async function pageAdmin() {
    add(main, title('Administration'));
    if (!me.is_admin) { add(main, h('p', { class: 'alert', role: 'alert' }, 'Admin privileges required.')); return; }
    const planSelect = (name, blank) => h('select', { name }, blank ? h('option', { value: '' }, blank) : null, Object.keys(PLANS).map((p) => h('option', { value: p }, p)));
    const cErr = alertBox();
    const cOut = h('div', { id: 'created-user' });
    const email = h('input', { name: 'email', type: 'email', required: true, autocomplete: 'off' });
    const plan = planSelect('plan');
    const admin = h('input', { name: 'is_admin', type: 'checkbox' });
    const create = h('form', {
      class: 'card', id: 'create-user', onsubmit: async (e) => {
        e.preventDefault();
        clear(cErr);
        try {
          const u = (await api('POST', '/api/admin/users', { email: email.value.trim(), plan: plan.value, is_admin: admin.checked })).data;
          add(clear(cOut), h('p', {}, 'Created ', h('span', { class: 'mono' }, u.id), ' for ' + u.email + ' on ' + u.plan + '.'),
            u.token ? [h('p', {}, h('strong', {}, 'Their first API token, shown only once:')), h('pre', { class: 'mono' }, u.token), copyButton(u.token, 'Token')] :
              h('p', {}, 'An admin signs in with a browser session: no token.'));
        } catch (x) { showError(cErr, x); }
      },
    }, h('h2', {}, 'Create a user'), h('div', { class: 'row' }, field('Email', email), field('Plan', plan)),
    h('div', { class: 'field check' }, admin, h('label', { for: admin.id = id('f') }, 'Administrator')), cErr, cOut, h('button', { type: 'submit' }, 'Create user'));
    const uErr = alertBox();
    const uOut = h('div');
    const userId = h('input', { name: 'user_id', required: true, autocomplete: 'off', placeholder: 'usr_…', spellcheck: 'false' });
    const newPlan = planSelect('new_plan', 'Unchanged');
    const newAdmin = h('select', { name: 'new_admin' }, h('option', { value: '' }, 'Unchanged'), h('option', { value: 'true' }, 'Yes'), h('option', { value: 'false' }, 'No'));
    const update = h('form', {
      class: 'card', id: 'update-user', onsubmit: async (e) => {
        e.preventDefault();
        clear(uErr);
        const body = {};
        if (newPlan.value) body.plan = newPlan.value;
        if (newAdmin.value) body.is_admin = newAdmin.value === 'true';
        try {
          const u = (await api('PATCH', '/api/admin/users/' + encodeURIComponent(userId.value.trim()), body)).data;
          add(clear(uOut), h('p', { role: 'status' }, u.email + ' is now on ' + u.plan + (u.is_admin ? ', admin.' : ', not admin.')));
        } catch (x) { showError(uErr, x); }
      },
    }, h('h2', {}, 'Change a user'), field('User id', userId), h('div', { class: 'row' }, field('Plan', newPlan), field('Administrator', newAdmin)),
    uErr, uOut, h('button', { type: 'submit' }, 'Save'));
    add(main, create, update);
  }

  // ---- Start ----------------------------------------------------------------------------
  document.querySelector('.brand').prepend(icon('shield'));
  document.querySelector('.skip').addEventListener('click', (e) => { e.preventDefault(); main.focus(); });
  // After a page change, focus moves to the new content for keyboard and
  // screen-reader users, unless the user already moved it while it loaded.
  window.addEventListener('hashchange', () => {
    const from = document.activeElement;
    route().then(() => { if (document.activeElement === from || document.activeElement === document.body) main.focus({ preventScroll: true }); });
  });
  // The other scripts of the page (deferred, so run before DOMContentLoaded)
  // add their pages through this; nothing here is data from the API.
  window.secscan = Object.freeze({
    h, add, svg, icon, clear, when, id, say, field, alertBox, showError, badge, confirmDialog, copyButton, title, api, words, unbroken,
    sevCounts, changeText, elapsed,
    PLANS, SEVERITIES, TERMINAL, CEILING, planFor,
    me: () => me,
    plan: () => PLANS[me && me.plan] || PLANS.free,
    addRoute(re, page) { routes.push([re, page]); },
  });
  document.addEventListener('DOMContentLoaded', () => finishSignIn().then((finished) => resume(finished) || route(), (err) => pageSignIn(err.message)));
})();
