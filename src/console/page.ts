import { escapeHtml, pagePolicy } from '../rest/html.ts';
import { DASHBOARD_STYLE } from '../dashboard/page.ts';

// Server-rendered HTML of the API-key console: no client-side script, every action a form POST.

/** Longest value each form field takes (the inputs' maxlength, and checked by the routes). */
export const FORM_LIMITS = { key: 100, name: 200 } as const;

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1b2b23}
h1{font-size:1.4rem}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #d5e0da}
.revoked{color:#8a8a8a;text-decoration:line-through}.secret{font:1rem monospace;background:#eef7f1;padding:.6rem;border:1px solid #7fb894;word-break:break-all}
.error{color:#a12020}form.inline{display:inline}button{cursor:pointer}meter{width:8rem}
label.field{display:block;margin:.5rem 0}label.field input{display:block;width:100%;max-width:32rem;box-sizing:border-box;margin-top:.25rem}
${DASHBOARD_STYLE}`;

/** Nothing but the page's own style sheet (by hash) and form posts to the console; never framed. */
export const CONTENT_SECURITY_POLICY = pagePolicy(STYLE, "'self'");

export interface ConsoleKey {
  id: string;
  prefix: string;
  name: string | null;
  environment: string;
  plan: string;
  bi_enabled: boolean;
  org_context: boolean;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  used_today: number;
  daily_limit: number;
}

export const layout = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head><body>${body}</body></html>`;

export function loginPage(error?: string): string {
  return layout(
    'Sign in · Organisation console',
    `<h1>Organisation console</h1>
<p>Sign in with a live API key of your organisation (a key with organisation context) to see its dashboard and manage its API keys.
No key yet? On the server, <code>npx lcf quickstart</code> creates an organisation and a key.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/console/login">
  <label class="field">API key <input name="key" type="password" autocomplete="off" required maxlength="${FORM_LIMITS.key}"></label>
  <button type="submit">Sign in</button>
</form>`,
  );
}

export function keysPage(org: { name: string; plan: string }, keys: ConsoleKey[], newKey?: { key: string; prefix: string }): string {
  const rows = keys
    .map(
      (k) => `<tr class="${k.revoked_at ? 'revoked' : ''}" data-key-id="${escapeHtml(k.id)}">
  <td><code>${escapeHtml(k.prefix)}…</code></td><td>${escapeHtml(k.name ?? '')}</td><td>${escapeHtml(k.environment)}</td>
  <td>${k.created_at.toISOString().slice(0, 10)}</td>
  <td class="last-used">${k.last_used_at ? `${k.last_used_at.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'never'}</td>
  <td class="usage"><meter min="0" max="${k.daily_limit}" value="${k.used_today}"></meter> ${k.used_today} / ${k.daily_limit}</td>
  <td>${k.revoked_at ? `revoked ${k.revoked_at.toISOString().slice(0, 10)}` : `<form class="inline" method="post" action="/console/keys/${escapeHtml(k.id)}/revoke"><button type="submit">Revoke</button></form>`}</td>
</tr>`,
    )
    .join('\n');
  return layout(
    `API keys · ${org.name}`,
    `<h1>API keys of ${escapeHtml(org.name)} <small>(${escapeHtml(org.plan)} plan)</small></h1>
<nav aria-label="Console"><a href="/console/dashboard">Dashboard</a></nav>
${newKey ? `<p>New key, shown once: copy it now.</p><p class="secret" id="new-key">${escapeHtml(newKey.key)}</p>` : ''}
<table><thead><tr><th>Key</th><th>Name</th><th>Environment</th><th>Created</th><th>Last used</th><th>Requests today (UTC)</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>
<h2>Create a key</h2>
<form method="post" action="/console/keys">
  <label>Name <input name="name" maxlength="${FORM_LIMITS.name}"></label>
  <label>Environment <select name="environment"><option value="live">live</option><option value="test">test (works in your sandbox)</option></select></label>
  <button type="submit">Create key</button>
</form>
<form method="post" action="/console/logout"><button type="submit">Sign out</button></form>`,
  );
}
