import cliProgress from 'cli-progress';

export interface ProgressBar {
  onProgress?: (done: number, total: number, label: string) => void;
  stop(): void;
}

/** A progress bar on stderr when it is a terminal; nothing otherwise (stdout stays the result only). */
export function progressBar(): ProgressBar {
  if (!process.stderr.isTTY) return { stop() {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: '{label} [{bar}] {value}/{total}', hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress(done, total, label) {
      if (!started) {
        bar.start(total, done, { label });
        started = true;
      }
      bar.setTotal(total);
      bar.update(done, { label });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
