// The command tree's top level. Groups load their verbs lazily (src/commands/<resource>/index.ts), and a verb's
// module is imported only when it runs, so `svc --help` and `svc <group> --help` load no command code.
import type { CommandNode } from '../cmdutil/command.js';

const group = (
  name: string,
  summary: string,
  load: () => Promise<{ children: CommandNode[] }>,
  extra: Partial<CommandNode> = {},
): CommandNode => ({
  name,
  summary,
  children: async () => (await load()).children,
  ...extra,
});

export const rootCommands: CommandNode[] = [
  group('auth', 'Log in, check and log out the API key', () => import('./auth/index.js')),
  { name: 'whoami', summary: 'Show the caller identity behind the API key', load: () => import('./whoami/show.js') },
  group('config', 'Read and write settings and profiles', () => import('./config/index.js')),
  group('alias', 'Shortcuts for command lines: set, list, delete', () => import('./alias/index.js')),
  group(
    'templates',
    'Saved prompts, system prompts, models and flags for -t (save, list, show, edit, delete)',
    () => import('./templates/index.js'),
  ),
  group('fragments', 'Saved text for -f (save, list, show, delete)', () => import('./fragments/index.js')),
  group('models', 'List and inspect models and their prices', () => import('./models/index.js')),
  group('files', 'Upload, list, download, share and delete stored files', () => import('./files/index.js')),
  group('skills', 'Upload, list, download and delete skills (zip archives)', () => import('./skills/index.js')),
  group('images', 'Generate and edit images (saved to files)', () => import('./images/index.js')),
  group('videos', 'Generate, edit and extend videos; wait for and download them', () => import('./videos/index.js')),
  group('chat', 'Chat with a model (streams by default)', () => import('./chat/index.js'), {
    load: () => import('./chat/create.js'),
  }),
  { name: 'api', summary: 'Call any endpoint, raw and authenticated', load: () => import('./api/request.js') },
  {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh, fish)',
    load: () => import('./completion/script.js'),
  },
  group(
    'agents',
    'Create, inspect and update voice agents; keep them as code (pull/push)',
    () => import('./agents/index.js'),
  ),
  group(
    'phone',
    'Buy, assign and release phone numbers (v1), register SIP numbers (v2)',
    () => import('./phone/index.js'),
  ),
  group('calls', 'Control active SIP calls (transfer, hang up)', () => import('./calls/index.js')),
  group('realtime', 'Realtime voice sessions and their client secrets', () => import('./realtime/index.js')),
  group(
    'custom-voices',
    'Create and manage custom voices from a reference clip',
    () => import('./custom-voices/index.js'),
  ),
  group('tts', 'Text to speech and the voices', () => import('./tts/index.js')),
  group('stt', 'Speech to text: transcribe files and live audio', () => import('./stt/index.js')),
  group('audio', 'Sound devices: list them, test the microphone and the speaker', () => import('./audio/index.js')),
  group(
    'responses',
    'Stored responses: create (streamed), continue (-c), inspect, compact',
    () => import('./responses/index.js'),
  ),
  {
    name: 'messages',
    summary: 'Send a prompt in the messages convention (POST /v1/messages)',
    load: () => import('./messages/create.js'),
  },
  group(
    'legacy',
    'Legacy text completions (completions, complete; not for reasoning models)',
    () => import('./legacy/index.js'),
  ),
  {
    name: 'embed',
    summary: 'Embed texts: one vector per input, in input order',
    load: () => import('./embed/create.js'),
  },
  {
    name: 'tokenize',
    summary: 'Split text into tokens (id, token, bytes) or count them',
    load: () => import('./tokenize/create.js'),
  },
  group('documents', 'Search the documents of collections', () => import('./documents/index.js')),
  group('mcp', "Serve the API's actions to MCP hosts (coding agents, editors)", () => import('./mcp/index.js')),
  {
    name: 'batch',
    summary: 'Send a file of rows to one endpoint: resumable, within a budget and the rate limit',
    load: () => import('./batch/run.js'),
  },
  group(
    'conversations',
    'Chat and messages conversations kept locally (list, show, delete)',
    () => import('./conversations/index.js'),
  ),
  group('logs', 'The local log of API calls: list, search, show, delete', () => import('./logs/index.js'), {
    load: () => import('./logs/list.js'),
  }),
  {
    name: 'usage',
    summary: 'Tokens and dollars spent, by day, model or command (from the call log)',
    load: () => import('./usage/show.js'),
  },
  group('emulator', 'Run the local emulator of the whole API', () => import('./emulator/index.js')),
  {
    name: 'help',
    summary: 'Help on a command, or a topic: environment, exit-codes, globals',
    load: () => import('./help/show.js'),
  },
  {
    name: 'doctor',
    summary: 'Check the setup: config, key, base URL, DNS, proxy, TLS, clock, audio tools, completion',
    load: () => import('./doctor/show.js'),
  },
  {
    name: 'version',
    summary: 'Print the version (--json: with the Node.js version and platform)',
    load: () => import('./version/show.js'),
  },
];
