import { describe, expect, it } from 'vitest';
import { emit, type AuthEvent } from '../src/events';

const EVENT: AuthEvent = { type: 'internal-error', message: 'unexpected error: boom' };

describe('emit', () => {
  it('hands the event to the listener', () => {
    const received: AuthEvent[] = [];
    emit((event) => received.push(event), EVENT);
    expect(received).toEqual([EVENT]);
  });

  it('does nothing without a listener', () => {
    expect(() => emit(undefined, EVENT)).not.toThrow();
  });

  it('shields the request from a listener that throws: the throw goes no further', () => {
    expect(() =>
      emit(() => {
        throw new Error('the log is full');
      }, EVENT),
    ).not.toThrow();
  });
});
