import { z } from 'zod';
import { participantSchema } from '../service/wire';

/**
 * Where a person who receives a document comes from: the document's own recipients, the
 * batch's default recipients (added to every document's creation), or participants added one
 * by one after the request is created (spec §4.5).
 */
export const personSourceSchema = z.enum(['document', 'batch', 'added']);
export type PersonSource = z.infer<typeof personSourceSchema>;

/** Someone who will receive a document, and where they come from. */
export const personSchema = participantSchema.extend({ source: personSourceSchema });
export type Person = z.infer<typeof personSchema>;
