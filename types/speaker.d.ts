// Declarations for `speaker` 0.5 (a Writable of PCM played through the native ALSA/CoreAudio binding).
declare module 'speaker' {
  import { Writable } from 'node:stream';
  interface SpeakerOptions {
    channels?: number;
    bitDepth?: number;
    sampleRate?: number;
    signed?: boolean;
    float?: boolean;
    samplesPerFrame?: number;
    device?: string;
  }
  class Speaker extends Writable {
    constructor(opts?: SpeakerOptions);
    close(flush: boolean): void;
  }
  export default Speaker;
}
