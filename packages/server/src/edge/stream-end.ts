/**
 * The end of a streamed response body, whichever way it comes: read to the end, failed, or
 * cancelled because the client went away. What a cap on open streams (a listen stream, an SSE
 * stream of a session) needs to give a slot back.
 *
 * @module
 */

/**
 * `response` with `onEnd` called once when its body has been read to the end, has failed or has
 * been cancelled; at once for a response without a body.
 *
 * @param response - the response to hand out
 * @param onEnd - called once, when the stream is over
 */
export function whenStreamEnds(response: Response, onEnd: () => void | Promise<void>): Response {
  if (!response.body) {
    void onEnd();
    return response;
  }
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    await onEnd();
  };
  return new Response(whenEnded(response.body, end), response);
}

/** `body`, calling `onEnd` when it has been read to the end, failed or been cancelled. */
function whenEnded(
  body: ReadableStream<Uint8Array>,
  onEnd: () => Promise<void>,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          await onEnd();
        } else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        await onEnd();
      }
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => {});
      await onEnd();
    },
  });
}
