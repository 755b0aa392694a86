import { AppError, ValidationError } from '@odp/core';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { assertJsonShape, jsonBody } from './json-body.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

const UNLIMITED = { depth: 1000, members: Infinity, values: Infinity };

/** The error assertJsonShape throws for `text` with a depth limit of `limit`, or undefined. */
function depthError(text: string, limit: number): ValidationError | undefined {
  try {
    assertJsonShape(bytes(text), { ...UNLIMITED, depth: limit });
    return undefined;
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
}

describe('assertJsonShape: depth', () => {
  it('counts the body as level 1 and passes a body at the limit', () => {
    expect(depthError(nested(4), 4)).toBeUndefined();
    expect(depthError(`{"a":${nested(3)}}`, 4)).toBeUndefined();
    expect(depthError(nested(5), 4)?.message).toBe(
      'The request body nests arrays and objects deeper than 4 levels.',
    );
  });

  it('names the top-level member holding the deep value, whatever its key contains', () => {
    const error = depthError(`{"legalName":"x","we\\"ird:[key":{"b":${nested(3)}}}`, 4);
    expect(error?.fieldErrors).toEqual([
      { field: 'we"ird:[key', message: 'nests arrays and objects deeper than 4 levels' },
    ]);
  });

  it('ignores brackets, colons and escaped quotes inside strings', () => {
    const text = `{"a":"[[[[[[{{{{{{\\"]]]]:","b":["\\\\",{"c":"]]]]]]"}]}`;
    expect(depthError(text, 3)).toBeUndefined();
    expect(JSON.parse(text)).toBeDefined();
  });

  it('tells a quote after an odd run of backslashes (escaped) from one after an even run (closing)', () => {
    const escaped = `{"a":"${'x'.repeat(100_000)}\\\\\\"[[[[[[","b":1}`;
    expect(JSON.parse(escaped)).toBeDefined();
    expect(depthError(escaped, 2)).toBeUndefined();
    const closed = `{"a":"${'x'.repeat(100_000)}\\\\","b":${nested(3)}}`;
    expect(JSON.parse(closed)).toBeDefined();
    expect(depthError(closed, 3)?.fieldErrors[0]?.field).toBe('b');
  });

  it('measures multi-byte text correctly', () => {
    expect(depthError(`{"naïve ✓":"€[[[[","x":${nested(2)}}`, 3)).toBeUndefined();
    expect(depthError(`{"naïve ✓":${nested(3)}}`, 3)?.fieldErrors[0]?.field).toBe('naïve ✓');
  });
});

/** The error assertJsonShape throws for `text` with these member and value limits, or undefined. */
function shapeError(text: string, members: number, values: number): AppError | undefined {
  try {
    assertJsonShape(bytes(text), { depth: 64, members, values });
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

const objectOf = (count: number) =>
  `{${Array.from({ length: count }, (_, index) => `"k${index}":${index}`).join(', ')}}`;

describe('assertJsonShape: members and values', () => {
  it('passes an object at the member limit and refuses one more with 413 (PAYLOAD_TOO_LARGE)', () => {
    expect(shapeError(objectOf(3), 3, 100)).toBeUndefined();
    const error = shapeError(objectOf(4), 3, 100);
    expect(error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error?.message).toBe('The request body has an object with more than 3 members.');
    expect(shapeError(`{"a":{"b":1,"c":2},"d":[${objectOf(4)}]}`, 3, 100)?.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('puts no member limit on arrays, but counts their elements as values', () => {
    expect(shapeError('[1,2,3,4,5]', 3, 100)).toBeUndefined();
    expect(shapeError('[1,2,3,4,5]', 3, 5)).toBeUndefined();
    expect(shapeError('[1,2,3,4,5,6]', 3, 5)?.message).toBe('The request body holds more than 5 values.');
  });

  it('counts the values of nested arrays and objects together, and nothing in empty ones or strings', () => {
    expect(shapeError('{"a":[1,{"b":2}],"c":{}, "d":[ ]}', 10, 6)).toBeUndefined();
    expect(shapeError('{"a":[1,{"b":2}],"c":{}, "d":[ ],"e":0}', 10, 6)?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(shapeError('{"a":"1,2,3,4,5,{,},[,]"}', 1, 1)).toBeUndefined();
  });

  it('refuses 600k members in a 7 MB body at the first one past the limit', () => {
    const text = objectOf(600_000);
    expect(text.length).toBeGreaterThan(7_000_000);
    expect(shapeError(text, 10_000, 200_000)?.message).toBe(
      'The request body has an object with more than 10000 members.',
    );
  });
});

/**
 * On a real HTTP server: the route after `jsonBody` sees whether an immediate queued when the
 * body's last bytes arrived (before it was parsed) ran before the route did. Each case runs with
 * a slice far from the time its body takes (parsing 8 MB takes milliseconds on any machine, a
 * small body far less than 250 ms even on a loaded one), so the outcome does not depend on the
 * machine's speed.
 */
describe('jsonBody: a large body is parsed in a step of the event loop of its own', () => {
  async function serve(sliceMs: number) {
    const yielded: boolean[] = [];
    const app = express();
    let immediateRan = false;
    app.use((req, _res, next) => {
      req.once('end', () => {
        immediateRan = false;
        setImmediate(() => (immediateRan = true));
      });
      next();
    });
    app.use(jsonBody({ maxMembers: 1000, maxValues: 100_000 }, sliceMs));
    app.post('/', (req, res) => {
      yielded.push(immediateRan);
      res.json({ length: JSON.stringify(req.body).length });
    });
    const server = app.listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const post = async (body: unknown): Promise<void> => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
    };
    return { yielded, post, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('goes on with the request in the next turn after a body whose parsing took a slice', async () => {
    const { yielded, post, close } = await serve(1);
    await post({ text: 'a large request body '.repeat(400_000) });
    expect(yielded).toEqual([true]);
    await close();
  });

  it('goes on at once after a body parsed within a slice', async () => {
    const { yielded, post, close } = await serve(250);
    await post({ warm: true });
    yielded.length = 0;
    await post({ subject: 'small' });
    expect(yielded).toEqual([false]);
    await close();
  });
});
