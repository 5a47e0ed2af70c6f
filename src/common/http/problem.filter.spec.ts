import { ForbiddenException, HttpException, NotFoundException } from '@nestjs/common';
import { toProblem } from './problem.filter';

describe('toProblem', () => {
  it("keeps the status of Nest's own exceptions it knows, 403 among them", () => {
    expect(toProblem(new ForbiddenException('Not yours.')).body).toMatchObject({
      status: 403,
      code: 'forbidden',
      detail: 'Not yours.',
    });
    expect(toProblem(new NotFoundException()).body).toMatchObject({ status: 404 });
  });

  it('answers 500 without the message for an exception of a status it does not know', () => {
    const { body } = toProblem(new HttpException('secret internals', 418));
    expect(body).toMatchObject({ status: 500, code: 'internal_error' });
    expect(JSON.stringify(body)).not.toContain('secret internals');
  });
});
