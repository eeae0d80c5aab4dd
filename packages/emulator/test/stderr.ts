// stderr of code that writes to process.stderr (svc-emulator's main), captured for the test.
export async function capturingStderr(run: () => Promise<unknown>): Promise<string> {
  const write = process.stderr.write;
  let said = '';
  process.stderr.write = ((chunk: string) => {
    said += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    await run();
  } finally {
    process.stderr.write = write;
  }
  return said;
}
