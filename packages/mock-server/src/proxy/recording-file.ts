/**
 * `--record FILE` as it goes: the recording is rewritten atomically after every exchange that showed
 * something, before the answer goes back to the client, so that a proxy killed outright (SIGKILL, a
 * crash, a closed laptop) loses at most the exchanges still in flight, never the session.
 */
import type { Recorder } from './recorder.js';
import { type Recording } from './recorder.js';
import type { Exchange } from './violation.js';

/** A {@link Recorder} tied to its file, saved after each exchange. */
export class RecordingFile {
  #wanted = 0;
  #written = 0;
  #writing: Promise<void> | undefined;

  constructor(
    readonly file: string,
    readonly recorder: Recorder,
    /** Told once per failed save (a full disk); the proxy keeps forwarding, and the next save tries again. */
    private readonly onError: (error: Error) => void = () => {},
  ) {}

  /** Records one answer and resolves once the file holds it (the proxy's `onAnswer`). */
  async observe(exchange: Exchange, status: number, json: unknown): Promise<void> {
    if (this.recorder.observe(exchange, status, json)) await this.flush();
  }

  /**
   * Resolves once the file holds everything observed before the call. Saves do not overlap: answers that
   * arrive during a save share the next one, so a busy proxy writes at most one file behind the traffic.
   */
  async flush(): Promise<void> {
    const wanted = ++this.#wanted;
    while (this.#written < wanted) {
      if (!this.#writing) {
        const covers = this.#wanted;
        this.#writing = this.recorder
          .save(this.file, { draft: true })
          .then(() => {
            this.#written = covers;
          })
          .catch((error: Error) => {
            // Counted as written so that waiting answers go out; the next exchange saves everything again.
            this.#written = covers;
            this.onError(error);
          })
          .finally(() => (this.#writing = undefined));
      }
      await this.#writing;
    }
  }

  /** Waits for the save in progress, then saves once more; throws when the file cannot be written. */
  async close(): Promise<Recording> {
    while (this.#writing) await this.#writing;
    return this.recorder.save(this.file);
  }
}
