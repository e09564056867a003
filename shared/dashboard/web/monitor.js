// Monitoring pages of the secscan dashboard: the overview of the user's
// targets (the home after sign-in) and a target's own page (its schedule,
// issue ledger with triage, asset inventory and trend). They use the helpers
// app.js exports as window.secscan; like app.js they build every element
// with h() and put API strings (target-supplied text) only into text nodes.
'use strict';
(function () {
  const S = window.secscan;
  const { h, add, svg, clear, when, say, field, alertBox, showError, badge, confirmDialog, title, api, words, sevCounts, changeText, SEVERITIES } = S;
  const main = document.getElementById('main');
  const enc = encodeURIComponent;
  const MAX_PAGES = 10; // pages of 200 read for one list, at most

  // all reads every page of a list (bounded).
  async function all(path) {
    const items = [];
    let next = path;
    for (let i = 0; next && i < MAX_PAGES; i++) {
      const r = await api('GET', next);
      items.push(...r.data);
      next = r.next;
    }
    return items;
  }

  const risk = (sc) => (sc && sc.risk_rating ? badge(sc.risk_rating, 'sev') : h('span', { class: 'muted' }, 'not scanned yet'));

  const plural = (n, noun) => n + ' ' + noun + (n === 1 ? '' : 's');

  // nextRun is the earliest next run of the target's enabled schedules.
  function nextRun(schedules, targetId) {
    const runs = schedules.filter((x) => x.target_id === targetId && x.enabled && x.next_run_at).map((x) => x.next_run_at).sort();
    return runs.length ? when(runs[0]) : null;
  }

  // latestCompleted maps target id to its newest completed scan record.
  function latestCompleted(scans) {
    const out = new Map();
    for (const sc of scans) if (sc.status === 'completed' && !out.has(sc.target_id)) out.set(sc.target_id, sc);
    return out;
  }

  // ---- Overview: how exposed are we ---------------------------------------
  async function pageOverview() {
    add(main, title('Overview'));
    const [targets, schedules, recent] = await Promise.all([all('/api/targets?limit=200'), all('/api/schedules?limit=200'),
      api('GET', '/api/scans?status=completed&limit=200')]);
    if (!targets.length) {
      add(main, h('section', { class: 'card first-step', id: 'first-step', 'aria-labelledby': 'first-h' },
        h('h2', { id: 'first-h' }, 'Add your first domain'),
        h('p', {}, 'Register a domain you control, publish the record or file we give you to prove it, then scan it. ' +
          'This page then shows how exposed each domain is and what changed since the last scan.'),
        h('a', { class: 'button', href: '#/targets' }, 'Add your first domain')));
      return;
    }
    const latest = latestCompleted(recent.data);
    // Targets whose last completed scan is older than that page: one read each (bounded).
    const missing = recent.next ? targets.filter((t) => !latest.has(t.id)).slice(0, 10) : [];
    await Promise.all(missing.map(async (t) => {
      const r = await api('GET', '/api/scans?status=completed&limit=1&target=' + enc(t.target));
      if (r.data[0]) latest.set(t.id, r.data[0]);
    }));
    const totals = {};
    for (const sc of latest.values()) for (const s of SEVERITIES) totals[s] = (totals[s] || 0) + ((sc.issues_by_severity || {})[s] || 0);
    add(main, h('section', { class: 'card', 'aria-labelledby': 'exp-h' }, h('h2', { id: 'exp-h' }, 'Open issues across your targets'),
      h('p', { id: 'exposure' }, sevCounts(latest.size ? totals : null)),
      h('p', { class: 'muted' }, targets.length + (targets.length === 1 ? ' target' : ' targets') + ' · ' +
        plural(schedules.filter((x) => x.enabled).length, 'active schedule'))),
    h('ul', { class: 'cards grid', id: 'overview' }, byExposure(targets, latest).map((t) => overviewCard(t, latest.get(t.id), nextRun(schedules, t.id)))));
  }

  // byExposure puts the most exposed targets first: by the risk rating of
  // their latest scan (unscanned ones last), then by name.
  function byExposure(targets, latest) {
    const order = ['critical', 'high', 'medium', 'low', 'none'];
    const rankOf = (t) => { const sc = latest.get(t.id); const i = sc ? order.indexOf(sc.risk_rating) : -1; return i < 0 ? order.length : i; };
    return targets.slice().sort((a, b) => rankOf(a) - rankOf(b) || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
  }

  function overviewCard(t, sc, next) {
    const fact = (label, value) => [h('dt', {}, label), h('dd', {}, value)];
    return h('li', { class: 'card target-card', 'data-target': t.target },
      h('div', { class: 'row spread' }, h('h2', { class: 'h3' }, h('a', { href: '#/targets/' + t.id }, t.target)),
        t.verified ? badge('verified', 'state') : badge('unverified', 'state')),
      t.verified ? null : h('p', { class: 'hint' }, t.verification_error ? 'Ownership could not be proved again: publish the record or file again, then press Verify on the Targets page.' :
        'Publish the TXT record or file from the Targets page, then press Verify.'),
      h('dl', { class: 'facts' },
        fact('Risk', risk(sc)),
        fact('Open issues', h('span', { class: 'open-issues' }, sevCounts(sc && sc.issues_by_severity))),
        fact('Since previous', h('span', { class: 'changes' }, changeText(sc))),
        fact('Last scan', sc ? h('a', { href: '#/scans/' + sc.id }, when(sc.finished_at)) : '—'),
        fact('Next run', h('span', { class: 'next-run' }, next ? [S.icon('clock'), next] : 'not scheduled'))));
  }

  // ---- A target: schedule, ledger with triage, assets, trend -----------------
  async function pageTarget(targetId) {
    const heading = title('Target');
    const targets = await all('/api/targets?limit=200');
    const t = targets.find((x) => x.id === targetId);
    if (!t) {
      add(main, heading, h('p', { class: 'alert', role: 'alert' }, 'There is no such target.'), h('p', {}, h('a', { href: '#/overview' }, 'Back to the overview')));
      return;
    }
    heading.textContent = t.target;
    document.title = t.target + ' · secscan';
    const [schedules, history] = await Promise.all([all('/api/schedules?limit=200'),
      api('GET', '/api/scans?limit=50&target=' + enc(t.target))]);
    const completed = history.data.filter((x) => x.status === 'completed');
    const latest = completed[0];
    add(main, heading,
      h('section', { class: 'card', 'aria-labelledby': 'state-h' }, h('h2', { id: 'state-h', class: 'sr-only' }, 'State'),
        h('div', { class: 'row spread' }, h('p', {}, t.verified ? badge('verified', 'state') : badge('unverified', 'state'), ' Risk: ', risk(latest),
          latest ? [' · ', h('span', { class: 'changes' }, changeText(latest))] : null),
        h('div', { class: 'row' }, h('a', { href: '#/scans?target=' + enc(t.target) }, 'All scans of ' + t.target),
          t.verified ? h('a', { class: 'button', href: '#/scans/new?target=' + enc(t.target) }, 'Scan now') :
            h('a', { class: 'button', href: '#/targets' }, 'Verify on the Targets page')))),
      scheduleSection(t, schedules),
      trendSection(completed.slice(0, 12).reverse()),
      ledgerSection(t),
      assetsSection(t, latest));
  }

  // ---- Schedule ----------------------------------------------------------
  function scheduleSection(t, schedules) {
    const box = h('section', { class: 'card', id: 'schedule', 'aria-labelledby': 'sch-h' });
    const err = alertBox();
    let mine = schedules.filter((x) => x.target_id === t.id);
    let count = schedules.length;
    function draw() {
      clear(box);
      add(box, h('h2', { id: 'sch-h' }, 'Schedule'));
      if (mine.length) for (const x of mine) add(box, scheduleCard(x));
      else add(box, h('p', { class: 'muted' }, 'No schedule: scans of ' + t.target + ' run only when you start them.'));
      add(box, err, scheduleForm(null));
    }
    async function reload() {
      const list = await all('/api/schedules?limit=200');
      count = list.length;
      mine = list.filter((x) => x.target_id === t.id);
      draw();
    }
    async function act(fn, done) {
      clear(err);
      try {
        await fn();
        if (done) say(done);
        await reload();
      } catch (x) { showError(err, x); }
    }
    function scheduleCard(x) {
      const fact = (label, value, cls) => [h('dt', {}, label), h('dd', { class: cls }, value)];
      return h('div', { class: 'schedule', 'data-schedule': x.id },
        h('p', { class: 'row' }, h('strong', {}, words(x.cadence) + ' ' + x.scan_type + ' scan, ' + x.tier + ' tier'),
          x.enabled ? badge('active', 'state') : badge('paused', 'state')),
        h('dl', { class: 'facts' },
          fact('Next run', x.next_run_at ? when(x.next_run_at) : 'paused', 'next-run'),
          fact('Last scan', x.last_scan_id ? h('a', { href: '#/scans/' + x.last_scan_id }, x.last_scan_id) : 'none yet'),
          x.last_error ? fact('Last run', h('span', { class: 'alert' }, x.last_error), 'last-error') : null),
        h('div', { class: 'row' },
          h('button', {
            type: 'button', class: 'secondary', 'data-action': x.enabled ? 'pause' : 'resume',
            onclick: () => act(() => api('PATCH', '/api/schedules/' + enc(x.id), { enabled: !x.enabled }), x.enabled ? 'Schedule paused' : 'Schedule resumed'),
          }, x.enabled ? 'Pause' : 'Resume'),
          h('button', {
            type: 'button', class: 'secondary', 'data-action': 'run', onclick: async () => {
              clear(err);
              try {
                const r = await api('POST', '/api/schedules/' + enc(x.id) + '/run');
                location.hash = '#/scans/' + r.data.id;
              } catch (e) { showError(err, e); await reload().catch(() => {}); }
            },
          }, 'Run now'),
          h('button', {
            type: 'button', class: 'secondary', 'data-action': 'edit', 'aria-expanded': 'false', onclick: (e) => {
              const card = e.target.closest('.schedule');
              const open = card.querySelector('form');
              e.target.setAttribute('aria-expanded', String(!open));
              if (open) open.remove();
              else card.append(scheduleForm(x));
            },
          }, 'Edit'),
          h('button', {
            type: 'button', class: 'danger', 'data-action': 'delete', onclick: async () => {
              if (!(await confirmDialog('Delete this schedule?', 'No more scans of ' + t.target + ' start by themselves; the scans it started are kept.', 'Delete schedule'))) return;
              await act(() => api('DELETE', '/api/schedules/' + enc(x.id)), 'Schedule deleted');
            },
          }, 'Delete')));
    }
    // scheduleForm creates a schedule (x null) or edits x; what the plan does
    // not allow is disabled with the reason and the plan that allows it.
    function scheduleForm(x) {
      const plan = S.plan();
      const cadence = h('select', { name: 'cadence' }, ['daily', 'weekly', 'monthly'].map((c) => h('option', {
        value: c, disabled: !plan.cadences.includes(c), selected: x ? x.cadence === c : c === 'weekly',
      }, plan.cadences.includes(c) || !plan.schedules ? c : c + ' (needs ' + S.planFor((p) => p.cadences.includes(c)) + ')')));
      const type = h('select', { name: 'scan_type' }, ['full', 'web', 'network', 'ssl', 'vuln', 'code'].map((v) => h('option', { value: v, selected: x ? x.scan_type === v : v === 'web' }, v)));
      const tier = h('select', { name: 'tier' }, ['quick', 'standard', 'deep'].map((v) => h('option', {
        value: v, disabled: !plan.tiers.includes(v), selected: x ? x.tier === v : v === 'standard',
      }, plan.tiers.includes(v) ? v : v + ' (needs ' + S.planFor((p) => p.tiers.includes(v)) + ')')));
      const limit = !x && !plan.schedules ? 'Schedules need the ' + S.planFor((p) => p.schedules > 0) + ' plan (your plan: ' + S.me().plan + ').' :
        !x && count >= plan.schedules ? 'Your ' + S.me().plan + ' plan allows ' + plan.schedules + ' schedules and you have ' + count + '; the ' +
          S.planFor((p) => p.schedules > count) + ' plan allows more.' : null;
      const hint = plan.cadences.length && !plan.cadences.includes('daily') ? 'Daily scans need the ' + S.planFor((p) => p.cadences.includes('daily')) + ' plan.' : null;
      const form = h('form', {
        class: 'row end schedule-form', 'aria-label': x ? 'Edit the schedule' : 'New schedule', onsubmit: async (e) => {
          e.preventDefault();
          const body = { cadence: cadence.value, scan_type: type.value, tier: tier.value };
          if (x) await act(() => api('PATCH', '/api/schedules/' + enc(x.id), body), 'Schedule saved');
          else await act(() => api('POST', '/api/schedules', Object.assign({ target: t.target }, body)), 'Schedule created');
        },
      }, x ? null : h('h3', { class: 'full' }, mine.length ? 'Add another schedule' : 'Scan ' + t.target + ' on a schedule'),
      field('Cadence', cadence, hint), field('Scan type', type), field('Tier', tier),
      h('button', { type: 'submit', disabled: Boolean(limit) || !t.verified }, x ? 'Save schedule' : 'Create schedule'),
      limit ? h('p', { class: 'hint full locked-reason' }, S.icon('lock'), limit) : null,
      !t.verified ? h('p', { class: 'hint full' }, 'Verify ' + t.target + ' first: only verified targets are scanned.') : null);
      for (const el of [cadence, type, tier]) el.disabled = Boolean(limit);
      return form;
    }
    draw();
    return box;
  }

  // ---- Trend of open issues by severity ----------------------------------------
  // A stacked bar per completed scan (oldest left), drawn as inline SVG, with
  // the same figures in a table for screen readers and for reading exactly.
  function trendSection(scans) {
    const section = h('section', { class: 'card', id: 'trend', 'aria-labelledby': 'trend-h' }, h('h2', { id: 'trend-h' }, 'Open issues over the last scans'));
    const counted = scans.filter((x) => x.issues_by_severity);
    if (!counted.length) return add(section, h('p', { class: 'muted' }, 'The trend appears after the first completed scan.'));
    const total = (x) => SEVERITIES.reduce((n, s) => n + x.issues_by_severity[s], 0);
    const top = Math.max(1, ...counted.map(total));
    const W = 320;
    const H = 140;
    const slot = W / counted.length;
    const barW = Math.min(36, slot * 0.6);
    const bars = counted.map((x, i) => {
      let y = H;
      return SEVERITIES.map((s) => {
        const hgt = (x.issues_by_severity[s] / top) * (H - 20);
        y -= hgt;
        return hgt > 0 ? svg('rect', { x: i * slot + (slot - barW) / 2, y, width: barW, height: hgt, class: 'bar sev-' + s }) : null;
      }).concat(svg('text', { x: i * slot + slot / 2, y: y - 4, class: 'chart-label', 'text-anchor': 'middle' }, String(total(x))),
        svg('text', { x: i * slot + slot / 2, y: H + 16, class: 'chart-label small', 'text-anchor': 'middle' }, shortDate(x.finished_at)));
    });
    const chart = svg('svg', { viewBox: '0 0 ' + W + ' ' + (H + 20), role: 'img', 'aria-labelledby': 'trend-h trend-d', class: 'chart trend' },
      svg('line', { x1: 0, y1: H + 1, x2: W, y2: H + 1, class: 'axis' }), bars);
    const legend = h('p', { class: 'legend' }, SEVERITIES.map((s) => h('span', { class: 'key' }, h('span', { class: 'swatch bar-' + s }), s)));
    const table = h('table', { class: 'trend-table' }, h('caption', {}, 'Open issues by severity, per scan'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Scan finished'), SEVERITIES.map((s) => h('th', { scope: 'col', class: 'num' }, s)), h('th', { scope: 'col', class: 'num' }, 'Total'))),
      h('tbody', {}, counted.map((x) => h('tr', { 'data-scan': x.id }, h('th', { scope: 'row', class: 'nw' }, h('a', { href: '#/scans/' + x.id }, when(x.finished_at))),
        SEVERITIES.map((s) => h('td', { class: 'num' }, String(x.issues_by_severity[s]))), h('td', { class: 'num' }, String(total(x)))))));
    const last = counted[counted.length - 1];
    return add(section, h('p', { id: 'trend-d', class: 'sr-only' }, counted.length + ' scans; the latest has ' + total(last) + ' open issues.'),
      chart, legend, h('details', {}, h('summary', {}, 'The figures as a table'), h('div', { class: 'table-wrap' }, table)));
  }

  // day is a timestamp's date, with the full time on hover and for readers.
  function day(ts) {
    return ts ? h('time', { datetime: ts, title: when(ts) }, new Date(ts).toLocaleDateString()) : '—';
  }

  function shortDate(ts) {
    return new Date(ts).toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
  }

  // ---- Issue ledger with triage ---------------------------------------------
  function ledgerSection(t) {
    const status = h('select', { name: 'status', 'aria-label': 'Status' }, h('option', { value: 'open' }, 'Open issues'), h('option', { value: 'fixed' }, 'Fixed issues'),
      h('option', { value: '' }, 'All issues'));
    const err = alertBox();
    const tbody = h('tbody');
    const count = h('p', { class: 'muted', 'aria-live': 'polite' });
    const section = h('section', { class: 'card', id: 'ledger', 'aria-labelledby': 'ledger-h' }, h('h2', { id: 'ledger-h' }, 'Issues'),
      h('p', { class: 'muted' }, 'Every issue a completed scan of ' + t.target + ' saw. A false positive or an accepted risk stays out of the risk rating, reports and CI gates of later scans.'),
      h('div', { class: 'row filters' }, status), count, err,
      h('div', { class: 'table-wrap' }, h('table', { id: 'ledger-table', class: 'stack' }, h('caption', { class: 'sr-only' }, 'The issue ledger of ' + t.target),
        h('thead', {}, h('tr', {}, ['Severity', 'Issue', 'Status', 'Triage', 'First seen', 'Last seen', ''].map((x, i) => h('th', { scope: 'col' }, x || h('span', { class: 'sr-only' }, 'Actions' + i))))),
        tbody)));
    async function load() {
      clear(err);
      try {
        const q = status.value ? '?status=' + status.value : '';
        const list = (await api('GET', '/api/targets/' + enc(t.id) + '/issues' + q)).data;
        clear(tbody);
        for (const e of list) add(tbody, ledgerRow(e));
        if (!list.length) add(tbody, h('tr', {}, h('td', { colspan: 7 }, status.value === 'open' ? 'No open issues.' : 'No issues.')));
        count.textContent = list.length + (list.length === 1 ? ' issue' : ' issues');
      } catch (x) { showError(err, x); }
    }
    function ledgerRow(e) {
      const action = e.triage ? 'Change triage' : 'Triage';
      return h('tr', { 'data-issue': e.key },
        h('td', {}, badge(e.severity, 'sev')),
        h('td', { class: 'title' }, h('a', { href: '#/scans/' + e.last_scan_id + '/issues/' + enc(e.key) }, S.unbroken(e.title)),
          h('div', { class: 'muted mono' }, e.key)),
        h('td', { 'data-label': 'Status' }, badge(e.status, 'issue')),
        h('td', { 'data-label': 'Triage', class: 'triage-cell' }, e.triage ? [h('span', { class: 'badge triage' }, words(e.triage.state)),
          h('div', { class: 'muted' }, e.triage.reason), e.triage.expires_at ? h('div', { class: 'muted' }, 'until ' + when(e.triage.expires_at)) : null] : '—'),
        h('td', { 'data-label': 'First seen', class: 'nw' }, day(e.first_seen_at)), h('td', { 'data-label': 'Last seen', class: 'nw' }, day(e.last_seen_at)),
        h('td', {}, h('button', { type: 'button', class: 'secondary triage-button', 'aria-label': action + ': ' + e.title, onclick: () => triage(t, e, load, err) }, action)));
    }
    status.addEventListener('change', load);
    load();
    return section;
  }

  // triageForm asks for the decision and its reason in a dialog, then for a
  // confirmation of exactly what will be recorded; the ledger reloads after.
  function triage(t, e, reload, err) {
    const state = h('select', { name: 'state' },
      h('option', { value: 'false_positive' }, 'False positive'), h('option', { value: 'accepted_risk' }, 'Accept the risk'),
      e.triage ? h('option', { value: 'open' }, 'Reopen') : null);
    const reason = h('textarea', { name: 'reason', maxlength: 500, rows: 3, required: true });
    const expires = h('input', { name: 'expires_at', type: 'date', min: new Date(Date.now() + 864e5).toISOString().slice(0, 10) });
    const expiresField = field('Accept until (optional)', expires, 'After this day the issue counts again.');
    const left = h('span', { class: 'hint' });
    const problem = alertBox();
    const sync = () => {
      expiresField.hidden = state.value !== 'accepted_risk';
      reason.required = state.value !== 'open';
      reason.disabled = state.value === 'open';
      left.textContent = (500 - reason.value.length) + ' characters left';
    };
    state.addEventListener('change', sync);
    reason.addEventListener('input', sync);
    const dlg = h('dialog', { 'aria-labelledby': 'triage-h', id: 'triage-dialog' },
      h('h2', { id: 'triage-h' }, 'Triage: ' + e.title),
      h('form', {
        method: 'dialog', onsubmit: (ev) => {
          if (ev.submitter && ev.submitter.value === 'cancel') return;
          ev.preventDefault();
          clear(problem);
          if (state.value !== 'open' && !reason.value.trim()) { problem.append('Say why: a reason is required.'); reason.focus(); return; }
          dlg.close('next');
        },
      }, field('Decision', state), field('Reason', reason), left, expiresField, problem,
      h('div', { class: 'row' }, h('button', { value: 'cancel', class: 'secondary', formnovalidate: true }, 'Cancel'), h('button', { value: 'next', type: 'submit' }, 'Continue'))));
    dlg.addEventListener('close', async () => {
      dlg.remove();
      if (dlg.returnValue !== 'next') return;
      const body = { state: state.value };
      if (state.value !== 'open') body.reason = reason.value.trim();
      if (state.value === 'accepted_risk' && expires.value) body.expires_at = new Date(expires.value + 'T23:59:59Z').toISOString().replace(/\.\d+Z$/, 'Z');
      const what = state.value === 'open' ? 'Reopen ' + e.title + '?' : 'Mark ' + e.title + ' as ' + words(state.value) + '?';
      const consequence = state.value === 'open' ? 'It counts again in the risk rating, reports and CI gates of later scans.' :
        'Later scans leave it out of the risk rating, reports and CI gates. Reason: ' + body.reason;
      if (!(await confirmDialog(what, consequence, state.value === 'open' ? 'Reopen' : 'Mark ' + words(state.value)))) return;
      clear(err);
      try {
        await api('PUT', '/api/targets/' + enc(t.id) + '/issues/' + enc(e.key), body);
        say(e.title + (state.value === 'open' ? ' reopened' : ' marked ' + words(state.value)));
        await reload();
      } catch (x) { showError(err, x); }
    });
    document.body.append(dlg);
    sync();
    dlg.showModal();
  }

  // ---- Asset inventory -------------------------------------------------------
  // New: first seen by the latest completed scan, when earlier scans exist.
  function assetsSection(t, latest) {
    const section = h('section', { class: 'card', id: 'assets', 'aria-labelledby': 'assets-h' }, h('h2', { id: 'assets-h' }, 'Assets'));
    const err = alertBox();
    add(section, err);
    api('GET', '/api/targets/' + enc(t.id) + '/assets').then((r) => {
      const { hosts, services } = r.data;
      const firsts = hosts.map((x) => x.first_seen_at).sort();
      const isNew = (x) => Boolean(latest && firsts.length && x.first_seen_at > firsts[0] && x.first_seen_at >= latest.started_at);
      const newMark = (x) => (isNew(x) ? [' ', h('span', { class: 'badge change-new' }, 'new')] : null);
      if (!hosts.length && !services.length) { add(section, h('p', { class: 'muted' }, 'Hosts and services appear after the first completed scan.')); return; }
      const table = (caption, id, heads, rows) => h('div', { class: 'table-wrap' }, h('table', { id, class: 'stack' }, h('caption', {}, caption),
        h('thead', {}, h('tr', {}, heads.map((x) => h('th', { scope: 'col' }, x)))), h('tbody', {}, rows)));
      const fresh = hosts.filter(isNew).length + services.filter(isNew).length;
      add(section, h('p', { class: 'muted' }, hosts.length + (hosts.length === 1 ? ' host, ' : ' hosts, ') + services.length + (services.length === 1 ? ' service' : ' services') + (fresh ? ', ' + fresh + ' new in the latest scan' : '') + '.'),
        table('Hosts', 'asset-hosts', ['Host', 'Addresses', 'First seen', 'Last seen'], hosts.map((x) => h('tr', { 'data-host': x.name, class: isNew(x) ? 'is-new' : null },
          h('td', {}, x.name, newMark(x)), h('td', { 'data-label': 'Addresses' }, x.addresses.join(', ') || '—'),
          h('td', { 'data-label': 'First seen' }, when(x.first_seen_at)), h('td', { 'data-label': 'Last seen' }, when(x.last_seen_at))))),
        table('Services', 'asset-services', ['Service', 'Product', 'First seen', 'Last seen'], services.map((x) => h('tr', { 'data-service': x.host + ':' + x.port, class: isNew(x) ? 'is-new' : null },
          h('td', {}, h('span', { class: 'nw' }, x.host + ':' + x.port), ' ' + (x.protocol || ''), newMark(x)),
          h('td', { 'data-label': 'Product' }, [x.product, x.version].filter(Boolean).join(' ') || '—'),
          h('td', { 'data-label': 'First seen' }, when(x.first_seen_at)), h('td', { 'data-label': 'Last seen' }, when(x.last_seen_at))))));
    }, (x) => showError(err, x));
    return section;
  }

  S.addRoute(/^#\/overview$/, pageOverview);
  S.addRoute(/^#\/targets\/(tgt_[0-9A-Za-z]+)$/, pageTarget);
})();
