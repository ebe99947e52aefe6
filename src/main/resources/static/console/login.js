// Login form of the DBA console. Posts through fetch so that a refusal (wrong password, too many
// failed attempts) is shown from its problem+json answer; the CSRF token comes from the XSRF-TOKEN cookie.
(function () {
  'use strict';

  function csrfToken() {
    const cookie = document.cookie.split('; ').find(c => c.startsWith('XSRF-TOKEN='));
    return cookie ? decodeURIComponent(cookie.substring('XSRF-TOKEN='.length)) : '';
  }

  function say(text) {
    const box = document.getElementById('message');
    box.hidden = false;
    box.className = 'problem';
    box.textContent = text;
  }

  const query = new URLSearchParams(window.location.search);
  if (query.has('error')) say('User or password not accepted.');
  if (query.has('expired')) say('Your session ended; log in again.');
  if (query.has('logout')) say('Logged out.');

  document.getElementById('login-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = new URLSearchParams();
    form.set('username', document.getElementById('username').value);
    form.set('password', document.getElementById('password').value);
    const response = await fetch('/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-XSRF-TOKEN': csrfToken() },
      body: form,
      credentials: 'same-origin'
    });
    if (response.redirected && !new URL(response.url).search.includes('error')) {
      window.location.assign(response.url);
      return;
    }
    const problem = response.headers.get('Content-Type') || '';
    if (problem.includes('json')) {
      const body = await response.json();
      say(body.code + ': ' + body.detail);
    } else {
      say('User or password not accepted.');
    }
  });
}());
