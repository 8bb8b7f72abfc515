import type { IncomingMessage, ServerResponse } from 'node:http';
import { CallTracker } from './call-tracker';
import { openCeremony, sign, signersAllowedNow } from './ceremony';
import { collectBody, headerValue, mediaType } from './http-io';
import type { ServiceState } from './service-state';
import type { OperationName } from './types';
import {
  WIDGET_CSP,
  renderCeremonyPage,
  renderExpiredLinkPage,
  renderMessagePage,
  renderRefusalPage,
} from './widget-page';

const WIDGET_PATH = /^\/widget\/(?<token>[A-Za-z0-9_-]+)(?<sign>\/sign)?$/;
const MAX_SIGN_FORM_BYTES = 4 * 1024;

type WidgetTarget = 'page' | 'sign' | 'none';

interface HtmlAnswer {
  status: number;
  html?: string;
  location?: string;
  allow?: string;
}

function writeHtml(response: ServerResponse, answer: HtmlAnswer): void {
  if (response.destroyed || response.headersSent) return;
  const payload = answer.html ?? '';
  response.writeHead(answer.status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'content-security-policy': WIDGET_CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    // The URL carries a secret token: never send it onwards, never cache the page.
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    ...(answer.location ? { location: answer.location } : {}),
    ...(answer.allow ? { allow: answer.allow } : {}),
  });
  response.end(payload);
}

function expiredLink(state: ServiceState, method: string, token: string): HtmlAnswer {
  if (state.widgetSessions.has(token)) {
    state.recordViolation(
      'widget-link',
      `${method} /widget/:token after the widget session expired (expires_in_seconds)`,
    );
  }
  return { status: 410, html: renderExpiredLinkPage() };
}

function showCeremony(state: ServiceState, token: string): HtmlAnswer {
  const session = state.liveWidgetSession(token);
  const request = session && state.requests.get(session.requestId);
  if (!request) return expiredLink(state, 'GET', token);
  openCeremony(request, state.clock.now());
  const allowedNow = new Set(signersAllowedNow(request).map((participant) => participant.participantId));
  return { status: 200, html: renderCeremonyPage(request, token, allowedNow) };
}

async function signForParticipant(
  state: ServiceState,
  request: IncomingMessage,
  token: string,
): Promise<HtmlAnswer | null> {
  const session = state.liveWidgetSession(token);
  const signingRequest = session && state.requests.get(session.requestId);
  if (!signingRequest) return expiredLink(state, 'POST', token);
  const pageHref = `/widget/${token}`;
  if (mediaType(headerValue(request, 'content-type')) !== 'application/x-www-form-urlencoded') {
    return {
      status: 415,
      html: renderRefusalPage('Signature refused', 'The form was not sent as a web form.', pageHref),
    };
  }
  const body = await collectBody(request, MAX_SIGN_FORM_BYTES);
  if (body.kind === 'aborted') return null;
  const participantId =
    body.kind === 'complete' ? new URLSearchParams(body.bytes.toString('utf8')).get('participant_id') : null;
  const outcome = sign(signingRequest, participantId ?? '', state.clock.now());
  switch (outcome) {
    case 'signed':
    case 'alreadySigned':
      // Post/redirect/get: reloading the page never signs twice.
      return { status: 303, location: pageHref };
    case 'notASigner':
      return {
        status: 400,
        html: renderRefusalPage(
          'Signature refused',
          'This participant is not a signer of this document.',
          pageHref,
        ),
      };
    case 'notSignable':
      return {
        status: 409,
        html: renderRefusalPage(
          'Signature refused',
          `This request is ${signingRequest.status}: it can no longer be signed.`,
          pageHref,
        ),
      };
    case 'outOfOrder':
      return {
        status: 409,
        html: renderRefusalPage(
          'Not your turn yet',
          'The signing order is enforced: the signers before this one must sign first.',
          pageHref,
        ),
      };
  }
}

/** How each widget address appears in the call log, without its secret token. */
const LOGGED_AS: Record<WidgetTarget, { path: string; operation: OperationName }> = {
  page: { path: '/widget/:token', operation: 'widgetPage' },
  sign: { path: '/widget/:token/sign', operation: 'widgetSign' },
  none: { path: '/widget/…', operation: 'unknown' },
};

/** Routes a widget call: the page answers GET, the sign action answers POST. */
async function answerWidgetCall(
  state: ServiceState,
  request: IncomingMessage,
  method: string,
  token: string,
  target: WidgetTarget,
): Promise<HtmlAnswer | null> {
  if (target === 'none') {
    return { status: 404, html: renderMessagePage('Not found', 'There is no page at this address.') };
  }
  if (target === 'sign' && method === 'POST') return signForParticipant(state, request, token);
  if (target === 'page' && method === 'GET') return showCeremony(state, token);
  const allow = target === 'sign' ? 'POST' : 'GET';
  return {
    status: 405,
    html: renderMessagePage('Method not allowed', `This address accepts ${allow} only.`),
    allow,
  };
}

/**
 * Serves the signing widget: `GET /widget/{token}` (the ceremony page; its first load opens
 * the ceremony) and `POST /widget/{token}/sign` (one signature, then a redirect back).
 * Tokens are secrets, so the call log records the path as `/widget/:token`.
 */
export async function serveWidget(
  state: ServiceState,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): Promise<void> {
  const method = request.method ?? 'GET';
  const match = WIDGET_PATH.exec(path);
  const target = !match ? 'none' : match.groups?.sign === undefined ? 'page' : 'sign';
  const logged = LOGGED_AS[target];
  const tracker = new CallTracker(state, { method, ...logged }, response);
  const answer = await answerWidgetCall(state, request, method, match?.groups?.token ?? '', target);
  if (answer === null) {
    tracker.settle(null);
    return;
  }
  writeHtml(response, answer);
  tracker.settle(answer.status);
}
