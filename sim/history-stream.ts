import { eventToJsonl, type HistoryEvent } from "./history.js";

/**
 * A history written as the run goes: each event becomes its JSONL line (the same bytes
 * historyToJsonl gives) in a buffer that is handed to `write` whenever it reaches
 * `bufferCharsMax`, so what the stream holds is bounded whatever the run's length.
 * `write` is the caller's (a file descriptor in the CLI): the simulator does no I/O.
 */
export const STREAM_BUFFER_CHARS_DEFAULT = 64 * 1024;

export class JsonlHistoryStream {
  private buffer = "";
  /** Events taken so far. */
  events = 0;
  /** Characters handed to `write` so far. */
  charsWritten = 0;
  private ended = false;

  constructor(
    private readonly write: (chunk: string) => void,
    private readonly bufferCharsMax = STREAM_BUFFER_CHARS_DEFAULT,
  ) {
    if (!(bufferCharsMax >= 1)) throw new Error(`JsonlHistoryStream: bufferCharsMax must be at least 1 (got ${bufferCharsMax})`);
  }

  /** Take one event (bound, so it can be passed as a Simulation's historySink). */
  readonly push = (e: HistoryEvent): void => {
    if (this.ended) throw new Error(`JsonlHistoryStream: event ${e.index} after end()`);
    this.events++;
    this.buffer += eventToJsonl(e);
    if (this.buffer.length >= this.bufferCharsMax) this.flush();
  };

  /** Hand what is buffered to `write`. */
  flush(): void {
    if (this.buffer.length === 0) return;
    const chunk = this.buffer;
    this.buffer = "";
    this.charsWritten += chunk.length;
    this.write(chunk);
  }

  /** The last flush; nothing may be pushed after it. */
  end(): void {
    this.flush();
    this.ended = true;
  }

  /** Characters buffered and not yet written (at most bufferCharsMax plus one line). */
  get bufferedChars(): number {
    return this.buffer.length;
  }
}
