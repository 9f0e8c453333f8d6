/**
 * Captures everything written to stdout/stderr (Powertools writes its JSON logs there) so a
 * suite can assert on its logs and scan them for secrets.
 */
export function captureOutput() {
  const lines: string[] = [];
  const originals = {
    out: process.stdout.write.bind(process.stdout),
    err: process.stderr.write.bind(process.stderr),
  };
  const grab = (chunk: unknown) => {
    lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  process.stdout.write = grab as typeof process.stdout.write;
  process.stderr.write = grab as typeof process.stderr.write;
  return {
    lines,
    text: () => lines.join(''),
    restore: () => {
      process.stdout.write = originals.out;
      process.stderr.write = originals.err;
    },
  };
}
