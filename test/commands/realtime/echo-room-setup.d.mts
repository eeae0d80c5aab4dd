export declare const questions: (turns: number) => string[];
export declare function writeRoom(
  dir: string,
  o: { turns: number; rate: number; driftPpm?: number; gainDb?: number },
): { PATH: string; ALSA_CONFIG_PATH: string; ECHO_ROOM: string };
export declare function answersShown(dir: string, count: number): void;
