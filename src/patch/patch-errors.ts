/**
 * The two Status shapes kube-apiserver's patch handler produces that the shared `errors` factories do
 * not cover (handlers/patch.go):
 *   - a generic 422: `errors.NewGenericServerResponse(422, "", GroupResource{}, "", err.Error(), 0, false)`,
 *     used for JSON patch application failures and some strategic merge patch errors. Its message is the
 *     fixed text below; the underlying error text is dropped, which is what clients really see.
 *   - a plain Go error returned from the handler, which `ErrorToAPIStatus` turns into a 500 whose
 *     reason is empty (StatusReasonUnknown) and whose message is the error text.
 */

import { StatusError } from '../apimachinery/status.js';

/** The fixed message of NewGenericServerResponse for HTTP 422. */
export const GENERIC_UNPROCESSABLE_MESSAGE = 'the server rejected our request due to an error in our request';

/** 422 Invalid with the generic message and an empty `details` object, as NewGenericServerResponse builds it. */
export function genericUnprocessableEntity(): StatusError {
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: GENERIC_UNPROCESSABLE_MESSAGE,
    reason: 'Invalid',
    details: {},
    code: 422,
  });
}

/** 500 with no reason and `message` verbatim: what a non-Status error from a handler becomes. */
export function unknownServerError(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}
