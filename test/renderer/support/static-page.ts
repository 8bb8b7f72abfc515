/**
 * Pages drawn once on the server side (react-dom/server), read as a person or a screen reader
 * would: the text of an element found by its id or class, and attributes, without a DOM.
 */
import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { DocumentView } from '../../../shared/ipc/views';

export function draw(element: ReactElement): string {
  return renderToStaticMarkup(element);
}

/** Text as read: tags gone, entities decoded, spaces (non-breaking ones too) collapsed. */
export function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/[\s\u00a0\u202f]+/g, ' ')
    .trim();
}

/** The markup of the first element opened by a tag matching `openingTag`, up to its closing tag. */
export function elementAt(html: string, openingTag: RegExp): string | undefined {
  const match = openingTag.exec(html);
  if (!match) return undefined;
  const name = /^<([a-z0-9]+)/i.exec(match[0])?.[1];
  if (!name) return undefined;
  let depth = 0;
  const tags = new RegExp(`<(/?)${name}\\b[^>]*?(/?)>`, 'gi');
  tags.lastIndex = match.index;
  for (let tag = tags.exec(html); tag; tag = tags.exec(html)) {
    if (tag[2] === '/') continue;
    depth += tag[1] === '/' ? -1 : 1;
    if (depth === 0) return html.slice(match.index, tag.index + tag[0].length);
  }
  return undefined;
}

/** The text of the element whose id is `id`. */
export function textById(html: string, id: string): string | undefined {
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const element = elementAt(html, new RegExp(`<[a-z0-9]+[^>]*\\sid="${escaped}"[^>]*>`, 'i'));
  return element === undefined ? undefined : textOf(element);
}

/** A document as main sends it, in `documentClass`, with what that class carries (times, status). */
export function documentIn(
  id: string,
  documentClass: DocumentView['class'],
  overrides: Partial<DocumentView> = {},
): DocumentView {
  const sent = ['waiting', 'unknown_status', 'completed', 'ended'].includes(documentClass);
  return {
    id,
    class: documentClass,
    externalReference: `REF-${id}`,
    originalName: `${id}.pdf`,
    storedFilename: `${id}.pdf`,
    sizeBytes: 1024,
    sha256: 'a'.repeat(64),
    recipients: [],
    extraParticipants: [],
    people: [],
    options: {},
    phase: sent ? 'prepared' : documentClass === 'not_sent' ? 'draft' : 'uploading',
    problems: [],
    locked: sent,
    gone: documentClass === 'gone',
    canOpenCeremony: documentClass === 'waiting',
    updatedAt: '2026-12-01T12:00:00.000Z',
    ...(sent ? { requestId: `sr_${id}`, preparedAt: '2026-12-01T12:00:00.000Z' } : {}),
    ...(documentClass === 'completed'
      ? {
          tracking: {
            status: 'completed',
            evidenceReady: true,
            finalizedAt: '2026-12-02T12:00:00.000Z',
            readAt: '2026-12-02T12:05:00.000Z',
            final: true,
          },
        }
      : {}),
    ...overrides,
  };
}
