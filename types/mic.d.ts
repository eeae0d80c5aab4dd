// Declarations for `mic` 2.x (records through arecord / sox; the stream starts with a WAV header on Linux).
declare module 'mic' {
  interface MicOptions {
    rate?: string;
    channels?: string;
    device?: string;
    bitwidth?: string;
    encoding?: 'signed-integer' | 'unsigned-integer' | string;
    endian?: 'little' | 'big' | string;
    fileType?: string;
    exitOnSilence?: number;
    debug?: boolean;
  }
  interface MicInstance {
    start(): void;
    stop(): void;
    pause(): void;
    resume(): void;
    getAudioStream(): NodeJS.ReadableStream;
  }
  function mic(options?: MicOptions): MicInstance;
  export default mic;
}
