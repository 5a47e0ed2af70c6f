import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { JwtStrategy } from './jwt.strategy';

@Module({
  imports: [PassportModule],
  providers: [JwtStrategy, AuthFailureLimiter],
  exports: [AuthFailureLimiter],
})
export class AuthModule {}
