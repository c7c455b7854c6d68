// Talking to the real Cube of the integration tests: its REST API and its WebSocket transport,
// with a deadline on every wait.
import WebSocket from 'ws';

export interface CubeAnswer {
  readonly status: number;
  /** The raw body, for asserting what must never appear in it. */
  readonly text: string;
  readonly body: Record<string, unknown>;
}

/** GET /load with the query in the URL, as Cube's JavaScript client does for small queries. */
export async function loadOverHttp(
  apiUrl: string,
  query: object,
  headers: Record<string, string> = {},
): Promise<CubeAnswer> {
  const url = `${apiUrl}/load?query=${encodeURIComponent(JSON.stringify(query))}`;
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

/** Cube's WebSocket messages, as @cubejs-backend/api-gateway's SubscriptionServer sends them (1.x echoes `messageId` as a string). */
export interface SocketMessage {
  readonly handshake?: boolean;
  readonly messageId?: number | string;
  readonly messageProcessedId?: number;
  readonly status?: number;
  readonly message?: Record<string, unknown>;
}

/**
 * A WebSocket connection to Cube. The protocol (SubscriptionServer.processMessage): send
 * `{ authorization: token }` and get `{ handshake: true }` or an error message; then send
 * `{ messageId, method: 'load', params: { query } }` and get `{ messageId, message, status }`.
 */
export class CubeSocket {
  private readonly received: SocketMessage[] = [];
  private readonly waiting: Array<() => void> = [];

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.received.push(JSON.parse(String(data)) as SocketMessage);
      this.waiting.splice(0).forEach((wake) => wake());
    });
    socket.on('close', () => this.waiting.splice(0).forEach((wake) => wake()));
  }

  static open(url: string, timeoutMs = 5_000): Promise<CubeSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { handshakeTimeout: timeoutMs });
      socket.once('open', () => resolve(new CubeSocket(socket)));
      socket.once('error', reject);
    });
  }

  send(message: object): void {
    this.socket.send(JSON.stringify(message));
  }

  /** The next message that satisfies `wanted`, or a rejection once `timeoutMs` has passed. */
  async next(wanted: (message: SocketMessage) => boolean = () => true, timeoutMs = 10_000): Promise<SocketMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.received.findIndex(wanted);
      if (index >= 0) return this.received.splice(index, 1)[0]!;
      const left = deadline - Date.now();
      if (left <= 0 || this.socket.readyState !== WebSocket.OPEN) {
        throw new Error(
          `No such WebSocket message from Cube within ${timeoutMs} ms; received: ${JSON.stringify(this.received)}`,
        );
      }
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, left);
        this.waiting.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  close(): void {
    this.socket.close();
  }
}

/**
 * A line of a stack trace ("\n    at fn (file.js:1:2)"), raw or escaped inside JSON, which must never
 * reach a caller. A message like "Token expired at 2026-…" is not one: no line break before "at".
 */
export const STACK_TRACE_LINE = /(?:\n|\\n)\s*at \S/;
