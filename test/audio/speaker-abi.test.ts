// A native `speaker` built for another Node (npm ran under one version, svc under another) is named with the fix,
// never a crash. The refusal is Node's own: a real addon is compiled here (cc) registering another module version,
// and loading it gives the message svc reads.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtForOtherNode } from '../../src/audio/devices.js';
import { tempDir } from '../helpers/files.js';
import { needTools } from '../helpers/tools.js';

/** A native module that registers NODE_MODULE_VERSION `abi` (Node's loader checks it before anything runs). */
const ADDON = `#include <stddef.h>
struct node_module { int nm_version; unsigned int nm_flags; void* nm_dso_handle; const char* nm_filename;
  void* nm_register_func; void* nm_context_register_func; const char* nm_modname; void* nm_priv; void* nm_link; };
extern void node_module_register(void*);
static struct node_module m = { ABI, 0, NULL, __FILE__, NULL, NULL, "speaker", NULL, NULL };
static void __attribute__((constructor)) reg(void) { node_module_register(&m); }
`;

describe('speaker built for another Node', () => {
  it("Node's refusal is said as what it is, with `npm rebuild speaker`", () => {
    needTools('cc');
    const dir = tempDir();
    writeFileSync(join(dir, 'addon.c'), ADDON);
    const other = Number(process.versions.modules) - 7;
    const addon = join(dir, 'binding.node');
    execFileSync('cc', ['-shared', '-fPIC', `-DABI=${other}`, '-o', addon, join(dir, 'addon.c')]);
    let message = '';
    try {
      createRequire(import.meta.url)(addon);
    } catch (err) {
      message = (err as Error).message;
    }
    const said = builtForOtherNode(message, 'v24.21.0');
    expect(said?.message).toBe(
      `cannot play audio: the \`speaker\` module was built for another Node.js (module version ${other}; Node ` +
        `v24.21.0 needs ${process.versions.modules}): run \`npm rebuild speaker\` with this Node (in svc's folder), ` +
        'or write the audio to a file with --output FILE (-o FILE) or to stdout with --output - instead, or choose ' +
        'a device with --output-device NAME (`svc audio devices` lists them)',
    );
    // an exit code of its own kind (a sound problem), not a crash
    expect(said?.name).toBe('AudioDeviceError');
  });

  it('any other failure to load is not taken for it', () => {
    expect(builtForOtherNode("Cannot find module 'speaker'")).toBeUndefined();
  });
});
