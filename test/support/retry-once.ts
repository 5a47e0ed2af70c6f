/**
 * setupFilesAfterEnv of the e2e-alone project, whose tests carry wall-clock bounds: a bound missed
 * once may be the machine (another process on the CPU), missed twice it is the code. The first
 * failure is still printed.
 */
jest.retryTimes(1, { logErrorsBeforeRetry: true });
