import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { VerifiedTokens } from './verified-tokens';
import { JwtStrategy } from './jwt.strategy';

@Module({
  imports: [PassportModule],
  providers: [JwtStrategy, AuthFailureLimiter, VerifiedTokens],
  exports: [AuthFailureLimiter, VerifiedTokens],
})
export class AuthModule {}
