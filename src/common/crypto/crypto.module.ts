import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { SecretBox } from './secret-box';

@Global()
@Module({
  providers: [
    {
      provide: SecretBox,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): SecretBox =>
        new SecretBox(config.encryption.currentKey, config.encryption.previousKeys),
    },
  ],
  exports: [SecretBox],
})
export class CryptoModule {}
