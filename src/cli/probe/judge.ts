/** What makes an answer of the deployment right or wrong, and how it is told without leaking what was sent. */
import { maskTokens, TOKEN_MISSING_MESSAGE } from '../../errors';
import { isObject, parseOutsideJson } from '../../http/json';
import type { Answer } from './http';

export type Verdict = 'PASS' | 'FAIL' | 'SKIP';

/** What a check expects: the status, and for a request without a token the hook's exact refusal. */
export interface Expectation {
  readonly status: 200 | 403;
  /** The exact JSON body, when it is fixed by the contract. */
  readonly body?: Readonly<Record<string, string>>;
}

interface Judgement {
  readonly verdict: Verdict;
  readonly reason: string;
}

/** The refusal of a request without a token: the hook's `ERR_TOKEN_MISSING`, which Cube sends as it is. */
export const MISSING_TOKEN_BODY = Object.freeze({ error: TOKEN_MISSING_MESSAGE });

/**
 * A line of a stack trace (`\n    at fn (file.js:1:2)`), raw or escaped inside JSON: what Cube sends along with a 500
 * in development mode, or a hook that puts `error.stack` in its answer.
 */
const STACK_TRACE_LINE = /(?:\n|\\n)\s*at \S/;

/** Most of an answer a reason quotes: the gist of a refusal, as long as the hook's own quotes of a token's values. */
const MAX_SHOWN = 64;

/** Shorter signatures could match a body by chance (an HS256 signature has 43 characters). */
const MIN_SIGNATURE_CHARS = 16;

/** The parts of a sent token that must never come back: the whole token, and its signature (which proves it). */
function secretParts(token: string): { readonly whole: string; readonly signature: string | undefined } {
  const signature = token.split('.')[2];
  return {
    whole: token,
    signature: signature !== undefined && signature.length >= MIN_SIGNATURE_CHARS ? signature : undefined,
  };
}

/** What of a sent token an answer gives back, if anything. */
function echoOf(text: string, token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const { whole, signature } = secretParts(token);
  if (text.includes(whole)) return 'the body echoes the token';
  if (signature !== undefined && text.includes(signature)) return "the body echoes the token's signature";
  return undefined;
}

/** The body as JSON; undefined when it is not JSON or nests past the limit (http/json.ts). */
function parsed(text: string): unknown {
  try {
    return parseOutsideJson(text);
  } catch {
    return undefined;
  }
}

/** A member of the body, when the body is a JSON object. */
function member(text: string, name: string): unknown {
  const body = parsed(text);
  return isObject(body) ? body[name] : undefined;
}

/**
 * Text from the deployment as a reason may show it: the sent token and anything shaped like one masked, cut at
 * {@link MAX_SHOWN} characters, quoted. Characters a terminal would act on are escaped where reasons are printed.
 */
function masked(text: string, token: string | undefined): string {
  let shown = text.trim();
  if (token !== undefined) {
    const { whole, signature } = secretParts(token);
    shown = shown.split(whole).join('[token]');
    if (signature !== undefined) shown = shown.split(signature).join('[signature]');
  }
  shown = maskTokens(shown);
  return JSON.stringify(shown.length > MAX_SHOWN ? `${shown.slice(0, MAX_SHOWN)}...` : shown);
}

/** A refusal as a reason shows it: Cube's `error` message when the body has one, else the body. */
function shownRefusal(text: string, token: string | undefined): string {
  const error = member(text, 'error');
  return masked(typeof error === 'string' ? error : text, token);
}

/** `/meta` as Cube answers it: an object with a list of cubes. */
function describeMeta(text: string): string | undefined {
  const cubes = member(text, 'cubes');
  if (!Array.isArray(cubes)) return undefined;
  return `/meta lists ${cubes.length} cube${cubes.length === 1 ? '' : 's'}`;
}

function sameBody(text: string, wanted: Readonly<Record<string, string>>): boolean {
  const body = parsed(text);
  if (!isObject(body)) return false;
  const entries = Object.entries(body);
  return entries.length === Object.keys(wanted).length && entries.every(([name, value]) => wanted[name] === value);
}

/** Why a status is not the one wanted, with the likely cause of the usual wrong ones. */
function wrongStatus(status: number, expected: number): string {
  if (status >= 500)
    return `expected ${expected}, got ${status} (what Cube answers when checkAuth throws a plain Error)`;
  if (expected === 403 && status === 200)
    return 'expected 403, got 200: the deployment accepted a request it must refuse';
  return `expected ${expected}, got ${status}`;
}

/** Judges one answer against what the check expects, given the token sent with it (if any). */
export function judge(answer: Answer, expectation: Expectation, token: string | undefined): Judgement {
  if (answer.kind === 'unanswered') return { verdict: 'FAIL', reason: answer.reason };
  const { status, text } = answer;
  const problems: string[] = [];
  if (status !== expectation.status) problems.push(wrongStatus(status, expectation.status));
  const echo = echoOf(text, token);
  if (echo !== undefined) problems.push(echo);
  if (STACK_TRACE_LINE.test(text)) problems.push('the body holds a stack trace');

  if (status === 200) {
    const meta = describeMeta(text);
    if (expectation.status === 200 && meta === undefined)
      problems.push("200, but the body is not Cube's /meta answer (no list of cubes)");
    return problems.length > 0
      ? { verdict: 'FAIL', reason: problems.join('; ') }
      : { verdict: 'PASS', reason: meta ?? 'accepted' };
  }
  if (status === expectation.status && expectation.body !== undefined && !sameBody(text, expectation.body)) {
    problems.push(`${status}, but the body is ${masked(text, token)}, not ${JSON.stringify(expectation.body)}`);
    return { verdict: 'FAIL', reason: problems.join('; ') };
  }
  const shown = shownRefusal(text, token);
  return problems.length > 0
    ? { verdict: 'FAIL', reason: `${problems.join('; ')}: ${shown}` }
    : { verdict: 'PASS', reason: shown };
}
