import { Global, Module } from '@nestjs/common';
import { META_STAND_IN, MetaStandIn } from '../channels';
import { SandboxLoopback } from './sandbox-loopback';
import { readSandboxConfig, SANDBOX_CONFIG, SandboxConfig } from './sandbox.config';

/**
 * The sandbox's configuration and what it changes in the channels' (META_STAND_IN: the stand-in's
 * Graph address and generated app secret, null when the sandbox is off). Global so that
 * ChannelsModule, below the sandbox, reads it without importing the sandbox.
 */
@Global()
@Module({
  providers: [
    { provide: SANDBOX_CONFIG, useFactory: (): SandboxConfig => readSandboxConfig(process.env) },
    SandboxLoopback,
    {
      provide: META_STAND_IN,
      inject: [SANDBOX_CONFIG, SandboxLoopback],
      useFactory: (config: SandboxConfig, loopback: SandboxLoopback): MetaStandIn | null =>
        config.enabled
          ? {
              graphApiUrl: () => loopback.graphApiUrl(),
              ...(config.generatedAppSecret && { generatedAppSecret: config.generatedAppSecret }),
            }
          : null,
    },
  ],
  exports: [SANDBOX_CONFIG, SandboxLoopback, META_STAND_IN],
})
export class SandboxStandInModule {}
