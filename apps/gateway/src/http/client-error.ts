/** Requests Node's HTTP parser refuses before any route sees them, answered in the OJS error envelope. */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { OjsError } from '@ojskit/core';
import { newRequestId } from '@ojskit/core/formats';
import { OJS_MEDIA_TYPE, OJS_VERSION } from './media.js';

/** Parser errors worth an answer, by Node's code: status and what to tell the client. */
const ANSWERS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    message: 'The request line and headers are larger than the server accepts (16 KiB): shorten the URL or the headers.',
  },
  HPE_INVALID_METHOD: { status: 400, reason: 'Bad Request', message: 'Unknown HTTP method: use GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS.' },
};
const MALFORMED = { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP/1.1.' };

/**
 * Answers what Node's parser refuses (an unknown method, a URL over the header size limit, malformed HTTP)
 * with the OJS error envelope and the protocol headers, where Node would send a bare status line. Sockets
 * that closed or timed out are just destroyed.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
      socket.destroy();
      return;
    }
    const answer = (error.code && ANSWERS[error.code]) || MALFORMED;
    const requestId = newRequestId();
    const body = JSON.stringify({
      error: new OjsError('invalid_request', answer.message, { status: answer.status, details: { parser_error: error.code ?? 'unknown' } }).toBody(requestId),
    });
    socket.end(
      `HTTP/1.1 ${answer.status} ${answer.reason}\r\n` +
        `Content-Type: ${OJS_MEDIA_TYPE}\r\nOJS-Version: ${OJS_VERSION}\r\nX-Request-Id: ${requestId}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
