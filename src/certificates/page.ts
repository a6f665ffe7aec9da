import * as fmt from '../documents/format.ts';
import {
  CERTIFICATE_TITLES,
  headline,
  methodologyRows,
  revokedNotice,
  sourceLine,
  statementRows,
  subjectRows,
} from '../documents/certificate-facts.ts';
import type { CertificateFacts } from '../documents/views.ts';
import { escapeHtml, pagePolicy } from '../rest/html.ts';
import { certificateFacts } from './payload.ts';
import type { Verdict, Verification } from './service.ts';

// The public verification page behind verify_url: server-rendered, no script, readable from a phone
// that scanned the QR code of a printed certificate.

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:1.5rem auto;max-width:46rem;padding:0 1rem;color:#1b2b23}
h1{font-size:1.35rem;margin-bottom:.2rem}h2{font-size:1.05rem;margin-top:1.6rem}.number{font-family:monospace;font-size:1.1rem}
.verdict{padding:.8rem 1rem;border-radius:.4rem;border:2px solid;margin:1rem 0}.verdict strong{font-size:1.25rem;display:block}
.valid{background:#e7f5ec;border-color:#2e7d4f}.altered{background:#fdeaea;border-color:#b3261e}.revoked{background:#fff4e0;border-color:#b36b00}
.unknown{background:#eef0f2;border-color:#5f6b76}.sandbox{background:#fff8d6;border:1px dashed #8a6d00;padding:.6rem 1rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid #d5e0da}
th{width:38%;font-weight:600}code{word-break:break-all;font-size:.85rem}ul{margin:0;padding-left:1.1rem}li{margin-bottom:.3rem}.muted{color:#5f6b76;font-size:.9rem}
`;

/** Nothing but the page's own style sheet (by hash): no script, no form, no framing. */
export const VERIFY_CONTENT_SECURITY_POLICY = pagePolicy(STYLE, "'none'");

const VERDICTS: Record<Verdict, { title: string; explain: (v: Verification) => string }> = {
  valid: {
    title: 'Valid',
    explain: () => 'The facts below are exactly the facts signed when the certificate was issued, and the issuer has not revoked it.',
  },
  altered: {
    title: 'Altered',
    explain: () =>
      'The facts held for this certificate no longer match their signature: they were changed after issue. Do not rely on them.',
  },
  revoked: {
    title: 'Revoked',
    explain: (v) => revokedNotice(v.revoked_at!).body,
  },
  unknown: {
    title: 'Unknown',
    explain: () => 'No certificate with this number was issued by this service. Check the number printed on the certificate.',
  },
};

/** As the PDF prints it (src/documents/certificate.ts groupFingerprint): upper-case groups of four, comparable by eye. */
const grouped = (hex: string | null) => (hex?.toUpperCase().match(/.{1,4}/g) ?? []).join(' ');
const row = (label: string, value: string, attributes = '') =>
  `<tr${attributes}><th scope="row">${escapeHtml(label)}</th><td>${value}</td></tr>`;

/** The facts as the PDF states them (the same sentences, src/documents/certificate-facts.ts), one table. */
function factsTable(facts: CertificateFacts): string {
  const total = headline(facts.statement).label;
  return `<table id="facts"><tbody>
${row('Certificate of', escapeHtml(CERTIFICATE_TITLES[facts.statement.kind]))}
${row('Organisation', escapeHtml(facts.organization_name))}
${subjectRows(facts)
  .map(([label, value]) => row(label, escapeHtml(value)))
  .join('\n')}
${statementRows(facts.statement)
  .map(([label, value]) =>
    label === total ? row(label, `<strong>${escapeHtml(value)}</strong>`, ' id="total"') : row(label, escapeHtml(value)),
  )
  .join('\n')}
${methodologyRows(facts)
  .map(([label, value]) => row(label, escapeHtml(value)))
  .join('\n')}
${row('Data sources', facts.data_sources.length ? `<ul>${facts.data_sources.map((s) => `<li>${escapeHtml(sourceLine(s))}</li>`).join('')}</ul>` : 'No external data source: built-in defaults of the methodology.')}
${row('Issued', escapeHtml(fmt.dateTime(facts.issued_at)))}
</tbody></table>`;
}

/** An altered payload may be anything: shown as stored when it is not shaped like a certificate's facts. */
function storedFacts(payload: unknown): string {
  const facts = certificateFacts(payload);
  return facts ? factsTable(facts) : `<pre id="facts"><code>${escapeHtml(JSON.stringify(payload, null, 2))}</code></pre>`;
}

export function verificationPage(v: Verification, links: { jwks: string; self: string }): string {
  const verdict = VERDICTS[v.verdict];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(`${verdict.title}: certificate ${v.certificate_number}`)}</title><style>${STYLE}</style></head>
<body>
<h1>CO₂ impact certificate</h1>
<p class="number">${escapeHtml(v.certificate_number)}</p>
<div id="verdict" class="verdict ${v.verdict}" data-verdict="${v.verdict}" role="status"><strong>${verdict.title}</strong>${escapeHtml(verdict.explain(v))}</div>
${v.sandbox ? '<p id="sandbox" class="sandbox"><strong>Sandbox certificate.</strong> Issued with a test API key over sandbox data: it certifies no real device.</p>' : ''}
${
  v.verdict === 'unknown'
    ? ''
    : `<h2>Facts${v.verdict === 'altered' ? ' as held now (not as signed)' : ' as signed'}</h2>
${storedFacts(v.payload)}
<h2>Signature</h2>
<table><tbody>
${row('Algorithm', `Ed25519 (${escapeHtml(v.algorithm)}) over the RFC 8785 canonical JSON of the facts`)}
${row('Key id', `<code>${escapeHtml(v.key_id)}</code>`)}
${row('Signature fingerprint', `<code id="fingerprint">${escapeHtml(grouped(v.signature_fingerprint))}</code><br><span class="muted">SHA-256 of the signature, as printed on the certificate</span>`)}
${row('Signature', `<code>${escapeHtml(v.signature)}</code>`)}
</tbody></table>`
}
<p class="muted">Check it yourself: this address with <code>Accept: application/json</code> answers the facts, the signature and the key id;
the public keys are at <code>${escapeHtml(links.jwks)}</code>. Address of this page: <code>${escapeHtml(links.self)}</code>.</p>
</body></html>`;
}
