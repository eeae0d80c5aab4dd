import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { repeatable } from '../../core/validate.js';
import { AGENTS_DIR, DEFAULT_ENV, ENV_NAME, PROJECT_FILE, saveProject } from './project.js';
import { makeDirs } from 'svc-formats/make-dirs';

export default defineCommand({
  description:
    `Makes DIR (default: the current folder) a project of agents: ${PROJECT_FILE} (the environments, and per ` +
    `agent its file and its agent id in each environment, recorded by push and pull) and ${AGENTS_DIR}/, one ` +
    `JSON file per agent (NAME.json; NAME.ENV.json is its overlay for environment ENV). The environment ` +
    `"${DEFAULT_ENV}" always exists; --env adds others. Nothing is sent: \`svc agents pull --all\` fills the ` +
    'project with the agents of the team. An existing project is left untouched (exit 2).',
  args: [{ name: 'dir', description: 'folder of the project (made when missing; default: the current folder)' }],
  options: [
    {
      flags: '--env <name>',
      description: `another environment besides ${DEFAULT_ENV} (repeatable), e.g. staging`,
      parse: repeatable((raw, flag) => {
        if (!ENV_NAME.test(raw))
          throw new UsageError(`${flag}: ${JSON.stringify(raw)} is not allowed: letters, digits, - and _`);
        return raw;
      }),
    },
  ],
  examples: ['svc agents init support-bots --env staging && cd support-bots && svc agents pull --all'],
  async run(ctx, [dir], opts) {
    const root = resolve(process.cwd(), dir ?? '.');
    if (existsSync(join(root, PROJECT_FILE)))
      throw new UsageError(`${join(root, PROJECT_FILE)} already exists: this folder is a project already`);
    makeDirs(join(root, AGENTS_DIR));
    const environments = [...new Set([DEFAULT_ENV, ...(opts.env ?? [])])];
    await saveProject({ dir: root, environments, agents: {}, secrets: [] });
    ctx.out.info(
      `made a project of agents in ${root} (environments: ${environments.join(', ')}); next: svc agents pull ` +
        '--all, or write agents/NAME.json and svc agents push',
    );
    ctx.out.line(join(root, PROJECT_FILE));
    return 0;
  },
});
