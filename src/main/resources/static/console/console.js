// DBA console: a thin client of /api/recovery. Same-origin requests carry the session cookie of the form login.
(function () {
  'use strict';
  // paths are relative to /api/recovery unless they name another API (reconciliation incidents)
  const api = (path) => window.location.origin + (path.startsWith('/api/') ? path : '/api/recovery' + path);
  const incidents = '/api/admin/reconciliation/incidents';
  let refreshTimer = null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([key, value]) => {
      if (key === 'class') node.className = value;
      else if (key.startsWith('on')) node.addEventListener(key.substring(2), value);
      else node.setAttribute(key, value);
    });
    children.flat().forEach(child => node.append(child instanceof Node ? child : document.createTextNode(child ?? '')));
    return node;
  }

  // The session cookie is HttpOnly; the CSRF token is the one cookie script may read, and every
  // state-changing call echoes it in X-XSRF-TOKEN (docs/security.md).
  function csrfToken() {
    const cookie = document.cookie.split('; ').find(c => c.startsWith('XSRF-TOKEN='));
    return cookie ? decodeURIComponent(cookie.substring('XSRF-TOKEN='.length)) : '';
  }

  async function call(method, path, body) {
    const headers = { 'Accept': 'application/json' };
    if (body) headers['Content-Type'] = 'application/json';
    if (method !== 'GET') headers['X-XSRF-TOKEN'] = csrfToken();
    const response = await fetch(api(path), {
      method,
      headers,
      body: body ? JSON.stringify(body) : undefined,
      credentials: 'same-origin'
    });
    if (response.status === 401) {
      window.location.assign('/console/login.html?expired');
      throw new Error('the session ended; log in again');
    }
    const text = await response.text();
    const json = text ? JSON.parse(text) : null;
    if (!response.ok) {
      const problem = json && json.code ? json.code + ': ' + json.detail : response.status + ' ' + text;
      throw new Error(problem);
    }
    return json;
  }

  function say(text, isProblem) {
    const box = document.getElementById('message');
    box.hidden = false;
    box.textContent = text;
    box.className = isProblem ? 'problem' : '';
  }

  function age(seconds) {
    if (seconds < 60) return seconds + ' s';
    if (seconds < 3600) return Math.floor(seconds / 60) + ' min ' + (seconds % 60) + ' s';
    return Math.floor(seconds / 3600) + ' h ' + Math.floor((seconds % 3600) / 60) + ' min';
  }

  function renderInDoubt(snapshot) {
    document.getElementById('self-tm').textContent = snapshot.selfTm;
    document.getElementById('live-nodes').textContent = snapshot.liveNodes.join(', ');
    document.getElementById('scanned-at').textContent = new Date(snapshot.scannedAt).toLocaleTimeString();
    const errors = Object.entries(snapshot.scanErrors || {});
    const errorBox = document.getElementById('scan-errors');
    errorBox.hidden = errors.length === 0;
    errorBox.textContent = errors.map(([source, error]) => 'UNKNOWN — cannot read ' + source + ': ' + error).join('; ');

    // Rows are rebuilt only when their content changed, so a refresh never pulls a button away
    // from under the DBA's pointer; the age is updated in place.
    const body = document.querySelector('#in-doubt tbody');
    const existing = new Map([...body.children].map(row => [row.dataset.gtrid, row]));
    const rows = snapshot.transactions.map(tx => {
      const signature = JSON.stringify({ ...tx, ageSeconds: 0 });
      let row = existing.get(tx.gtrid);
      if (!row || row.dataset.signature !== signature) {
        row = transactionRow(tx);
        row.dataset.signature = signature;
      }
      row.querySelector('[data-field=age]').textContent = age(tx.ageSeconds);
      return row;
    });
    body.replaceChildren(...rows);
    document.getElementById('in-doubt-count').textContent = snapshot.transactions.length;
    document.getElementById('none-in-doubt').hidden = snapshot.transactions.length > 0;
  }

  function transactionRow(tx) {
    return el('tr', { 'data-gtrid': tx.gtrid },
      el('td', { class: 'mono' }, tx.gtrid),
      el('td', {}, el('span', { class: 'badge ' + tx.classification, 'data-field': 'class' }, tx.classification)),
      el('td', { 'data-field': 'age' }, age(tx.ageSeconds)),
      el('td', {}, tx.ownerTm
        ? el('span', { class: tx.ownerAlive ? 'alive' : 'gone' }, tx.ownerTm + (tx.ownerAlive ? ' (alive)' : ' (gone)'))
        : el('span', { class: 'gone' }, 'unknown')),
      el('td', { 'data-field': 'recommendation' }, el('b', {}, tx.recommendation),
        tx.coordinatorState ? el('div', { class: 'quiet' }, 'log: ' + tx.coordinatorState) : ''),
      el('td', {}, el('ul', {},
        tx.branches.map(branch => el('li', {},
          el('b', {}, branch.resource), ' ', el('span', { class: 'mono' }, branch.rawId),
          el('div', { class: 'quiet' }, 'prepared ' + new Date(branch.preparedAt).toLocaleTimeString()
            + (branch.dbOwner ? ' by ' + branch.dbOwner : '')),
          el('div', { 'data-field': 'locks' }, branch.locks.length === 0 ? 'no locks'
            : 'locks: ' + branch.locks.map(lock => (lock.relation || lock.lockType) + ' ' + lock.mode).join(', ')))),
        tx.missingResources.map(resource => el('li', { class: 'quiet' }, resource + ': no prepared branch')),
        Object.entries(tx.unknownResources || {}).map(([what, reason]) =>
          el('li', { class: 'error', 'data-field': 'unknown' }, what + ': UNKNOWN (could not be read: ' + reason + ')')))),
      el('td', { 'data-field': 'intent' }, tx.intent.length === 0 ? el('span', { class: 'quiet' }, 'none journaled')
        : el('ul', {}, tx.intent.map(intent => el('li', {}, intent.use_case + ' ' + (intent.business_key || ''),
          el('div', { class: 'quiet' }, 'request ' + (intent.request_id || '-') + ' by ' + (intent.user_id || '-')
            + ' · ' + intent.status))))),
      el('td', {}, el('ul', { 'data-field': 'evidence' }, tx.evidence.map(line => el('li', {}, line)))),
      el('td', {}, el('button', { 'data-action': 'propose', onclick: () => openProposal(tx) }, 'Propose…')));
  }

  function openProposal(tx) {
    document.getElementById('proposal-panel').hidden = false;
    document.getElementById('p-gtrid').value = tx.gtrid;
    const scope = document.getElementById('p-scope');
    scope.replaceChildren(el('option', { value: '' }, 'all branches'),
      ...tx.branches.map(branch => el('option', { value: branch.resource + '|' + branch.rawId }, branch.resource + ' only')));
    document.getElementById('p-action').value = tx.recommendation === 'COMMIT' ? 'COMMIT' : 'ROLLBACK';
    document.getElementById('p-reason').focus();
  }

  async function submitProposal(event) {
    event.preventDefault();
    const [resource, rawId] = document.getElementById('p-scope').value
      ? document.getElementById('p-scope').value.split('|') : [null, null];
    try {
      const resolution = await call('POST', '/resolutions', {
        gtrid: document.getElementById('p-gtrid').value,
        resource, rawId,
        action: document.getElementById('p-action').value,
        reason: document.getElementById('p-reason').value,
        override: document.getElementById('p-override').checked,
        justification: document.getElementById('p-justification').value || null
      });
      say('Proposed resolution #' + resolution.id + ': a second DBA must approve it.');
      document.getElementById('proposal-form').reset();
      document.getElementById('proposal-panel').hidden = true;
      await refresh(false);
    } catch (e) {
      say(e.message, true);
    }
  }

  async function step(id, verb) {
    try {
      const resolution = await call('POST', '/resolutions/' + id + '/' + verb);
      say('Resolution #' + id + ' is ' + resolution.status + (resolution.outcome ? ': ' + resolution.outcome : ''));
      await refresh(true);
    } catch (e) {
      say(e.message, true);
    }
  }

  function unchanged(table, data) {
    const signature = JSON.stringify(data);
    if (table.dataset.signature === signature) return true;
    table.dataset.signature = signature;
    return false;
  }

  function renderResolutions(resolutions) {
    const body = document.querySelector('#resolutions tbody');
    if (unchanged(body, resolutions)) return;
    body.replaceChildren(...resolutions.map(r => el('tr', { 'data-resolution': r.id },
      el('td', {}, '#' + r.id),
      el('td', { class: 'mono' }, r.gtrid),
      el('td', {}, r.action),
      el('td', {}, r.resource ? r.resource : 'all branches'),
      el('td', { 'data-field': 'status' }, r.status),
      el('td', {}, r.proposedBy, el('div', { class: 'quiet' }, r.reason),
        r.override ? el('div', { class: 'error' }, 'override: ' + r.justification) : ''),
      el('td', {}, r.approvedBy || ''),
      el('td', {}, r.executedBy || ''),
      el('td', { class: 'mono' }, r.outcome || '', el('ul', { 'data-field': 'branches' }, (r.branches || []).map(b =>
        el('li', { class: b.outcome ? '' : 'error' }, 'attempt ' + b.attempt + ': ' + b.intended + ' ' + b.resource + ' → '
          + (b.outcome || 'outcome not recorded') + (b.detail ? ' (' + b.detail + ')' : ''))))),
      el('td', {},
        r.status === 'PROPOSED' ? el('button', { 'data-action': 'approve', onclick: () => step(r.id, 'approve') }, 'Approve') : '',
        r.status === 'APPROVED' ? el('button', { 'data-action': 'execute', onclick: () => step(r.id, 'execute') }, 'Execute') : '',
        r.status === 'EXECUTING' || r.status === 'FAILED'
          ? el('button', { 'data-action': 'execute', onclick: () => step(r.id, 'execute') }, 'Re-run') : '')
    )));
  }

  function renderAudit(entries, verification) {
    const badge = document.getElementById('audit-verify');
    badge.textContent = verification.intact ? 'chain intact (' + verification.entries + ')'
      : 'chain broken at #' + verification.brokenAtSeq + ': ' + verification.problem;
    badge.className = 'badge ' + (verification.intact ? 'intact' : 'broken');
    const body = document.querySelector('#audit tbody');
    if (unchanged(body, entries)) return;
    body.replaceChildren(...entries.map(entry => el('tr', {},
      el('td', {}, entry.seq),
      el('td', {}, new Date(entry.at).toLocaleString()),
      el('td', {}, entry.actor),
      el('td', {}, entry.action),
      el('td', { class: 'mono' }, entry.gtrid || ''),
      el('td', {}, entry.detail),
      el('td', { class: 'mono', title: entry.hash }, entry.hash.substring(0, 12) + '…'))));
  }

  function renderMismatches(mismatches) {
    document.getElementById('mismatch-count').textContent = mismatches.length;
    const body = document.querySelector('#mismatches tbody');
    if (unchanged(body, mismatches)) return;
    body.replaceChildren(...mismatches.map(m => el('tr', { 'data-application': m.applicationId },
      el('td', {}, '#' + m.applicationId),
      el('td', {}, m.approvalStatus),
      el('td', { class: 'mono' }, m.processInstanceId),
      el('td', {}, m.engineState),
      el('td', { class: 'error' }, m.problem),
      el('td', {}, new Date(m.updatedAt).toLocaleString()))));
  }

  function renderIncidents(list) {
    const open = list.filter(i => i.state !== 'CLOSED');
    document.getElementById('incident-count').textContent = open.length + ' open';
    const body = document.querySelector('#incidents tbody');
    if (unchanged(body, list)) return;
    body.replaceChildren(...list.map(i => el('tr', { 'data-incident': i.id },
      el('td', {}, '#' + i.id),
      el('td', {}, '#' + i.application_id, el('div', { class: 'mono quiet' }, i.process_instance_id || '')),
      el('td', {}, i.rule_id),
      el('td', { 'data-field': 'state' }, i.state),
      el('td', {}, el('div', { class: 'error' }, i.difference),
        el('details', {}, el('summary', {}, 'evidence'), el('pre', { class: 'mono', 'data-field': 'evidence' }, pretty(i.evidence)))),
      el('td', {}, i.proposed_fix || '', el('div', { class: 'quiet' }, i.proposal_note || ''),
        i.command_used ? el('div', { class: 'mono' }, i.command_used) : '',
        i.verification ? el('div', { class: 'quiet', 'data-field': 'verification' }, i.verification) : ''),
      el('td', {}, i.proposed_by || ''),
      el('td', {}, i.approved_by || ''),
      el('td', {}, i.executed_by || ''),
      el('td', {}, incidentActions(i)))));
  }

  function pretty(json) {
    try {
      return JSON.stringify(JSON.parse(json), null, 1);
    } catch (e) {
      return json;
    }
  }

  function incidentActions(i) {
    if (i.state === 'OPEN') {
      const fix = el('select', { 'data-field': 'fix' }, ['CLOSE_WITHOUT_CHANGE', 'SAFE_REPAIR', 'MANUAL'].map(f => el('option', {}, f)));
      const note = el('input', { 'data-field': 'note', placeholder: 'why', size: '18' });
      return el('div', {}, fix, note, el('button', { 'data-action': 'propose-fix', onclick: () =>
        incidentStep(i.id, 'propose', { fix: fix.value, note: note.value || null }) }, 'Propose'));
    }
    if (i.state === 'PROPOSED') {
      return el('button', { 'data-action': 'approve-fix', onclick: () => incidentStep(i.id, 'approve') }, 'Approve');
    }
    if (i.state === 'APPROVED') {
      const command = el('input', { 'data-field': 'command', placeholder: 'command used (manual)', size: '18' });
      const check = el('input', { 'data-field': 'check', placeholder: 'how you verified', size: '18' });
      return el('div', {}, i.proposed_fix === 'MANUAL' ? [command, check] : '', el('button', { 'data-action': 'execute-fix',
        onclick: () => incidentStep(i.id, 'execute', { commandUsed: command.value || null, verification: check.value || null }) },
        'Execute'));
    }
    if (i.state === 'EXECUTED') {
      return el('button', { 'data-action': 'close-incident', onclick: () => incidentStep(i.id, 'close') }, 'Close');
    }
    return '';
  }

  async function incidentStep(id, verb, body) {
    try {
      const incident = await call('POST', incidents + '/' + id + '/' + verb, body);
      say('Incident #' + id + ' is ' + incident.state);
      await refresh(false);
    } catch (e) {
      say(e.message, true);
    }
  }

  async function refresh(scanNow) {
    try {
      const [snapshot, resolutions, audit, verification, mismatches] = await Promise.all([
        call('GET', '/in-doubt' + (scanNow ? '?refresh=true' : '')),
        call('GET', '/resolutions'),
        call('GET', '/audit?limit=50'),
        call('GET', '/audit/verify'),
        call('GET', '/mismatches')]);
      renderIncidents(await call('GET', incidents));
      renderInDoubt(snapshot);
      renderMismatches(mismatches);
      renderResolutions(resolutions);
      renderAudit(audit, verification);
    } catch (e) {
      say('Refresh failed: ' + e.message, true);
    }
  }

  function schedule() {
    clearInterval(refreshTimer);
    if (document.getElementById('auto-refresh').checked) {
      refreshTimer = setInterval(() => refresh(true), 5000);
    }
  }

  async function logOut() {
    await fetch('/logout', { method: 'POST', headers: { 'X-XSRF-TOKEN': csrfToken() }, credentials: 'same-origin' });
    window.location.assign('/console/login.html?logout');
  }

  document.getElementById('scan-now').addEventListener('click', () => refresh(true));
  document.getElementById('log-out').addEventListener('click', logOut);
  document.getElementById('auto-refresh').addEventListener('change', schedule);
  document.getElementById('proposal-form').addEventListener('submit', submitProposal);
  document.getElementById('p-cancel').addEventListener('click', () => {
    document.getElementById('proposal-panel').hidden = true;
  });
  refresh(true);
  schedule();
}());
