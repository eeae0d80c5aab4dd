// V8 flags set at run time (undici's WebAssembly tier, the collector for streamed downloads). When the CLI runs
// from the bundle, bin/svc.cjs keeps one code cache per set of flags (V8 rejects a cache made under other flags)
// and must see the change: it then sets them itself, after saving what was compiled under the old ones.
type FlagSetter = (flags: string) => void;

export async function setV8Flags(flags: string): Promise<void> {
  const viaLauncher = (globalThis as Record<symbol, unknown>)[Symbol.for('svc.setV8Flags')] as FlagSetter | undefined;
  if (viaLauncher) return viaLauncher(flags);
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString(flags);
}
