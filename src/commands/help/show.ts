import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { didYouMean } from '../../core/suggest.js';
import { TOPICS } from './topics.js';

export default defineCommand({
  description:
    '`svc help files list` is `svc files list --help`. Topics: ' +
    TOPICS.map((t) => `${t.name} (${t.summary})`).join(', ') +
    '. With --json a topic prints one JSON object per line.',
  args: [{ name: 'command-or-topic', description: 'a command path (files list) or a topic', variadic: true }],
  examples: [
    'svc help',
    'svc help files list',
    'svc help environment',
    'svc help exit-codes --json',
    'svc help globals',
  ],
  async run(ctx, [words]) {
    const [first] = words as string[];
    // bare `svc help` and command words never reach here: cli.ts prints the top-level help, and turns
    // `svc help X Y` into `svc X Y --help`
    if (first === undefined) {
      ctx.out.write(TOPICS.map((t) => `svc help ${t.name}\t${t.summary}\n`).join(''));
      return 0;
    }
    const topic = TOPICS.find((t) => t.name === first);
    if (!topic)
      throw new UsageError(
        `TOPIC: ${first} is not a command or a topic: ${TOPICS.map((t) => t.name).join(', ')}${didYouMean(
          first,
          TOPICS.map((t) => t.name),
        )}`,
      );
    if (ctx.out.json) for (const row of topic.rows()) ctx.out.printJsonLine(row);
    else ctx.out.write(topic.text(ctx.out.stdoutIsTTY ? ctx.streams.stdout.columns || 80 : 80));
    return 0;
  },
});
