import assert from 'node:assert/strict';
import { test } from 'node:test';

import { BatchedTerminalWriter, type Wait } from './terminalWrites';
import { TextStream } from './textStream';

/** A terminal that records what it is given, and waits that end when the test draws a frame. */
function setup() {
  const calls: string[] = [];
  const screen = { text: '' };
  const sink = {
    write(text: string) {
      calls.push(text);
      screen.text += text;
    },
    reset() {
      calls.push('<reset>');
      screen.text = '';
    },
  };
  const waits: (() => void)[] = [];
  const wait: Wait = (then) => {
    let live = true;
    waits.push(() => {
      if (live) then();
      live = false;
    });
    return () => {
      live = false;
    };
  };
  /** Ends the waits running (a frame drawn). */
  const frame = () => {
    for (const end of waits.splice(0)) end();
  };
  const writer = new BatchedTerminalWriter(sink, wait);
  const stream = new TextStream();
  return { calls, screen, writer, stream, frame };
}

/** Hands the stream to the writer as XtermView does: what it holds, then what comes. */
function attach(writer: BatchedTerminalWriter, stream: TextStream): () => void {
  writer.write(stream.contents);
  return stream.subscribe(({ reset, text }) => (reset ? writer.reset(text) : writer.write(text)));
}

test('text after a quiet spell is written at once (a key\'s echo); text while the terminal waits, in one write after it', () => {
  const { calls, writer, frame } = setup();
  writer.write('l');
  assert.deepEqual(calls, ['l']); // at once
  writer.write('s');
  writer.write('\r\n');
  writer.write('bin etc\r\n');
  assert.deepEqual(calls, ['l']);
  frame();
  assert.deepEqual(calls, ['l', 's\r\nbin etc\r\n']);
  // That write starts a wait of its own: more text waits for the frame after.
  writer.write('# ');
  assert.deepEqual(calls, ['l', 's\r\nbin etc\r\n']);
  frame();
  assert.deepEqual(calls, ['l', 's\r\nbin etc\r\n', '# ']);
  // A frame with nothing to write ends the waiting: the next key echoes at once.
  frame();
  writer.write('x');
  assert.deepEqual(calls, ['l', 's\r\nbin etc\r\n', '# ', 'x']);
  writer.write('');
  frame();
  assert.equal(calls.length, 4);
});

test('a flood (a long paste echoed) is every character, in order, in one write a frame', () => {
  const { calls, screen, writer, stream, frame } = setup();
  attach(writer, stream);
  let sent = '';
  for (let i = 0; i < 5000; i++) {
    const piece = `${i % 10 === 9 ? '\r\n' : ''}${String.fromCharCode(33 + (i % 90))}`;
    stream.append(piece);
    sent += piece;
    if (i % 700 === 699) frame();
  }
  frame();
  frame();
  assert.equal(screen.text, sent);
  assert.equal(calls.length, 1 + Math.floor(5000 / 700) + 1, `${calls.length} writes`);
});

test('a reset drops what was kept for the old screen; the stream\'s text after it comes after it; disposed, nothing more', () => {
  const { calls, screen, writer, stream, frame } = setup();
  stream.append('old boot\r\n');
  attach(writer, stream);
  stream.append('more of the old\r\n'); // kept (waiting)
  stream.reset('new ');
  stream.append('boot');
  frame();
  frame();
  assert.deepEqual(calls, ['old boot\r\n', '<reset>', 'new boot']);
  assert.equal(screen.text, stream.contents);
  stream.append('!'); // after a quiet frame: at once
  stream.append('?'); // kept, and dropped with the writer
  writer.dispose();
  frame();
  assert.deepEqual(calls, ['old boot\r\n', '<reset>', 'new boot', '!']);
});
