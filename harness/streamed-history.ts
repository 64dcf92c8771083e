import { closeSync, writeSync } from "node:fs";
import { JsonlHistoryStream } from "../sim/history-stream.js";
import { discardTemp, openTempFor, writeFailed, type SafeWriteOptions } from "./safe-write.js";

/**
 * history.jsonl written as the run goes: the run's history sink fills a bounded buffer
 * (sim/history-stream.ts) that is written to the file's temporary name, so the whole
 * history is never one string in memory. The temp is renamed with the run's other files
 * (writeRunArtifacts) or, on any other exit, removed by `discard`.
 */
export class StreamedHistoryFile {
  private readonly temp: { tmp: string; fd: number; madeDir: string | undefined };
  private fdOpen = true;
  readonly stream: JsonlHistoryStream;

  constructor(
    readonly path: string,
    private readonly o: SafeWriteOptions = {},
  ) {
    this.temp = openTempFor(path, o);
    this.stream = new JsonlHistoryStream((chunk) => this.writeChunk(chunk));
  }

  private writeChunk(chunk: string): void {
    try {
      writeSync(this.temp.fd, chunk);
    } catch (e) {
      throw writeFailed(this.path, e, this.o);
    }
  }

  /** The last chunk written and the file closed: the temporary path, for writeRunArtifacts. */
  finish(): string {
    this.stream.end();
    this.close();
    return this.temp.tmp;
  }

  private close(): void {
    if (!this.fdOpen) return;
    this.fdOpen = false;
    closeSync(this.temp.fd);
  }

  /** Every exit path: close, and remove the temp unless it was renamed into place. */
  discard(): void {
    this.close();
    discardTemp(this.temp, this.path);
  }
}
