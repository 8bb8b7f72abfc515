import type { StoredParticipant, StoredSigningRequest } from './service-state';

/**
 * The HTML of the signing widget. Self-contained (inline CSS, no script, no external
 * resource) so it renders under the strict CSP the widget routes send, in a locked-down
 * window with every permission denied.
 */

export const WIDGET_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'";
export const EXPIRED_LINK_MESSAGE = 'This signing link has expired or is not valid';
export const COMPLETED_MESSAGE = 'All signatures are collected. You can close this window.';

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0; padding: 2rem; }
  main { max-width: 42rem; margin: 0 auto; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; }
  dt { font-weight: 600; }
  dd { margin: 0; overflow-wrap: anywhere; }
  ul { list-style: none; padding: 0; }
  li { border: 1px solid #8884; border-radius: 0.5rem; padding: 0.75rem 1rem; margin-bottom: 0.75rem; }
  button { font: inherit; padding: 0.4rem 1rem; border-radius: 0.4rem; cursor: pointer; }
  button:disabled { cursor: not-allowed; }
  button:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
  .note { font-size: 0.9rem; margin: 0.25rem 0 0; }
  .done { font-weight: 600; }
`;

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`;
}

function participantItem(
  participant: StoredParticipant,
  signAction: string,
  allowedNow: ReadonlySet<string>,
): string {
  const id = escapeHtml(participant.participantId);
  const details = [
    participant.participantType === 'signer' ? 'Signer' : 'Observer',
    participant.role,
    participant.email,
    participant.signingOrder === null ? undefined : `order ${participant.signingOrder}`,
  ]
    .filter((part): part is string => part !== undefined)
    .map(escapeHtml)
    .join(' · ');
  const heading = `<h3 id="name-${id}">${escapeHtml(participant.name)}</h3><p>${details}</p>`;
  if (participant.participantType !== 'signer') return `<li aria-labelledby="name-${id}">${heading}</li>`;
  if (participant.signedAt !== null) {
    return `<li aria-labelledby="name-${id}">${heading}<p class="done">Signed on ${new Date(participant.signedAt).toISOString()}</p></li>`;
  }
  const buttonText = `Sign as ${escapeHtml(participant.name)}`;
  if (!allowedNow.has(participant.participantId)) {
    return `<li aria-labelledby="name-${id}">${heading}
<form method="post" action="${signAction}"><input type="hidden" name="participant_id" value="${id}"><button type="submit" disabled aria-describedby="wait-${id}">${buttonText}</button></form>
<p class="note" id="wait-${id}">Waiting for the signers before this one (the signing order is enforced).</p></li>`;
  }
  return `<li aria-labelledby="name-${id}">${heading}
<form method="post" action="${signAction}"><input type="hidden" name="participant_id" value="${id}"><button type="submit">${buttonText}</button></form></li>`;
}

/**
 * The ceremony page: the document, its reference, every participant, and a "Sign as <name>"
 * form for each signer who may sign now (disabled, with a note, for those who must wait).
 */
export function renderCeremonyPage(
  request: StoredSigningRequest,
  token: string,
  allowedNow: ReadonlySet<string>,
): string {
  const signAction = `/widget/${encodeURIComponent(token)}/sign`;
  const completed = request.status === 'completed';
  const status = completed
    ? `<p role="status" class="done">${COMPLETED_MESSAGE}</p>`
    : `<p role="status">Each signer signs with the button next to their name.</p>`;
  const items = request.participants
    .map((participant) => participantItem(participant, signAction, allowedNow))
    .join('\n');
  return page(
    `Sign ${request.filename}`,
    `<h1>Signing ceremony</h1>
<dl>
<dt>Document</dt><dd>${escapeHtml(request.filename)}</dd>
<dt>Reference</dt><dd>${escapeHtml(request.externalReference)}</dd>
</dl>
${status}
<section aria-labelledby="participants-heading">
<h2 id="participants-heading">Participants</h2>
<ul>
${items}
</ul>
</section>`,
  );
}

/** The 410 page for an unknown or expired widget link. */
export function renderExpiredLinkPage(): string {
  return page(
    'Signing link expired',
    `<h1>${EXPIRED_LINK_MESSAGE}</h1>
<p>Ask the sender to open the ceremony again; a new link will be created.</p>`,
  );
}

/** A page explaining why a signature was refused, with a way back to the ceremony. */
export function renderRefusalPage(title: string, explanation: string, backHref: string): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(explanation)}</p>
<p><a href="${escapeHtml(backHref)}">Back to the ceremony</a></p>`,
  );
}

/** A plain page for widget addresses that do not exist or methods they do not accept. */
export function renderMessagePage(title: string, explanation: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(explanation)}</p>`);
}
