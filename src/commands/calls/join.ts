import { outputPath } from '../../core/atomic-file.js';
import { defineCommand } from '../../cmdutil/command.js';
import { forceFlags } from '../../cmdutil/flag-sets.js';
import { pattern } from '../../core/validate.js';
import { AEC_OPTIONS, SESSION_OPTIONS, checkVoiceFlags, runVoiceSession } from '../../realtime/run.js';

export const JOIN_AUDIO_OPTIONS = [
  { flags: '--input <mic|file|->', description: 'also send local audio to the call (default: none)' },
  {
    flags: '--output <speaker|file|->',
    description: "also play or save the agent's audio (default: none)",
    parse: outputPath({ pass: ['speaker'] }),
  },
  ...forceFlags('an existing --output file'),
  ...AEC_OPTIONS,
];

export default defineCommand({
  description:
    'Connects to the call announced by a realtime.call.incoming webhook (/v1/realtime?call_id=…, API key ' +
    'only) and configures the ' +
    'session (from --agent and the flags). The caller and the agent talk over the phone line; the transcript ' +
    'of both is printed on ' +
    'stdout (--json: every server event as one JSON line). No local audio is used unless --input / --output ' +
    'ask for it. Ends when ' +
    'the call ends, or with Ctrl-C.',
  args: [{ name: 'call_id', description: 'the call id from the realtime.call.incoming webhook', required: true }],
  options: [...JOIN_AUDIO_OPTIONS, ...SESSION_OPTIONS],
  examples: [
    'svc calls join rtc_abc123 --agent agent_123',
    'svc calls join rtc_abc123 --instructions "You are a helpful receptionist" --tool-cmd lookup=./lookup.sh',
    'svc calls join rtc_abc123 --output call.wav',
  ],
  async run(ctx, [callId], opts) {
    pattern(/^[\x21-\x7e]{1,200}$/, 'a call id from the realtime.call.incoming webhook')(callId, 'CALL_ID', undefined);
    checkVoiceFlags(ctx, opts);
    return runVoiceSession(ctx, opts, { callId, labels: { user: 'caller', assistant: 'agent' } });
  },
});
