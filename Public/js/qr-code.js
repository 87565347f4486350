/**
 * A QR code encoder (ISO/IEC 18004, byte mode, versions 1...40), so the page can show a link as a code a
 * phone's camera reads without loading anything from elsewhere. `encodeQR(text)` returns the module grid;
 * `drawQR(canvas, code)` paints it with the quiet zone the standard asks for.
 */

// Per error-correction level (L, M, Q, H), indexed by version: EC codewords per block, and number of blocks.
const ECC_PER_BLOCK = {
    L: [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    M: [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
    Q: [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    H: [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
};
const BLOCKS = {
    L: [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
    M: [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
    Q: [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
    H: [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
};
const FORMAT_LEVEL = { L: 1, M: 0, Q: 3, H: 2 };
const MASKS = [
    (x, y) => (x + y) % 2 === 0,
    (x, y) => y % 2 === 0,
    (x) => x % 3 === 0,
    (x, y) => (x + y) % 3 === 0,
    (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
    (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
    (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
    (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

/**
 * @param {string} text encoded as UTF-8 bytes
 * @param {{level?: 'L'|'M'|'Q'|'H', mask?: number}} [options] the mask is chosen by the standard's penalty unless given
 * @returns {{version: number, level: string, mask: number, size: number, modules: boolean[][]}} modules[y][x], true is dark
 */
export function encodeQR(text, { level = 'M', mask } = {}) {
    const bytes = [...new TextEncoder().encode(text)];
    let version = 1;
    while (version <= 40 && dataCapacityBits(version, level) < 4 + (version < 10 ? 8 : 16) + bytes.length * 8) version += 1;
    if (version > 40) throw new Error('the text is too long for a QR code');
    const codewords = addErrorCorrection(dataCodewords(bytes, version, level), version, level);
    const grid = new Grid(version);
    grid.drawFunctionPatterns();
    grid.drawCodewords(codewords);
    const masks = mask === undefined ? [0, 1, 2, 3, 4, 5, 6, 7] : [mask];
    let best = null;
    for (const candidate of masks) {
        const trial = grid.copy();
        trial.applyMask(candidate);
        trial.drawFormatBits(level, candidate);
        const score = masks.length > 1 ? trial.penalty() : 0;
        if (!best || score < best.score) best = { score, grid: trial, mask: candidate };
    }
    return { version, level, mask: best.mask, size: best.grid.size, modules: best.grid.modules };
}

/** Paints `code` on `canvas`, `scale` device pixels per module, with a four-module quiet zone. */
export function drawQR(canvas, code, scale = 6) {
    const quiet = 4;
    const side = (code.size + quiet * 2) * scale;
    canvas.width = side;
    canvas.height = side;
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, side, side);
    context.fillStyle = '#000000';
    code.modules.forEach((row, y) => row.forEach((dark, x) => {
        if (dark) context.fillRect((x + quiet) * scale, (y + quiet) * scale, scale, scale);
    }));
}

function rawDataModules(version) {
    let modules = (16 * version + 128) * version + 64;
    if (version >= 2) {
        const align = Math.floor(version / 7) + 2;
        modules -= (25 * align - 10) * align - 55;
        if (version >= 7) modules -= 36;
    }
    return modules;
}

function dataCapacityBits(version, level) {
    return (Math.floor(rawDataModules(version) / 8) - ECC_PER_BLOCK[level][version] * BLOCKS[level][version]) * 8;
}

/** Mode, length, the bytes, terminator and padding, as codewords. */
function dataCodewords(bytes, version, level) {
    const bits = [];
    const push = (value, count) => { for (let i = count - 1; i >= 0; i -= 1) bits.push((value >>> i) & 1); };
    push(0b0100, 4);
    push(bytes.length, version < 10 ? 8 : 16);
    for (const byte of bytes) push(byte, 8);
    const capacity = dataCapacityBits(version, level);
    push(0, Math.min(4, capacity - bits.length));
    push(0, (8 - (bits.length % 8)) % 8);
    for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) push(pad, 8);
    const words = [];
    for (let i = 0; i < bits.length; i += 8) words.push(bits.slice(i, i + 8).reduce((word, bit) => (word << 1) | bit, 0));
    return words;
}

/** Splits the data into blocks, appends each block's Reed-Solomon codewords and interleaves them. */
function addErrorCorrection(data, version, level) {
    const blockCount = BLOCKS[level][version];
    const eccLength = ECC_PER_BLOCK[level][version];
    const raw = Math.floor(rawDataModules(version) / 8);
    const shortBlocks = blockCount - (raw % blockCount);
    const shortLength = Math.floor(raw / blockCount);
    const divisor = reedSolomonDivisor(eccLength);
    const blocks = [];
    for (let i = 0, k = 0; i < blockCount; i += 1) {
        const block = data.slice(k, k + shortLength - eccLength + (i < shortBlocks ? 0 : 1));
        k += block.length;
        const ecc = reedSolomonRemainder(block, divisor);
        if (i < shortBlocks) block.push(0);
        blocks.push([...block, ...ecc]);
    }
    const result = [];
    for (let i = 0; i < blocks[0].length; i += 1) {
        blocks.forEach((block, j) => {
            // Short blocks carry a placeholder where long blocks have their last data codeword.
            if (i !== shortLength - eccLength || j >= shortBlocks) result.push(block[i]);
        });
    }
    return result;
}

function gfMultiply(x, y) {
    let z = 0;
    for (let i = 7; i >= 0; i -= 1) {
        z = (z << 1) ^ ((z >>> 7) * 0x11d);
        z ^= ((y >>> i) & 1) * x;
    }
    return z;
}

function reedSolomonDivisor(degree) {
    const result = new Array(degree).fill(0);
    result[degree - 1] = 1;
    let root = 1;
    for (let i = 0; i < degree; i += 1) {
        for (let j = 0; j < degree; j += 1) {
            result[j] = gfMultiply(result[j], root);
            if (j + 1 < degree) result[j] ^= result[j + 1];
        }
        root = gfMultiply(root, 0x02);
    }
    return result;
}

function reedSolomonRemainder(data, divisor) {
    const result = new Array(divisor.length).fill(0);
    for (const byte of data) {
        const factor = byte ^ result.shift();
        result.push(0);
        divisor.forEach((coefficient, i) => { result[i] ^= gfMultiply(coefficient, factor); });
    }
    return result;
}

/** The module grid, and which modules belong to function patterns (never masked, never data). */
class Grid {
    constructor(version) {
        this.version = version;
        this.size = version * 4 + 17;
        this.modules = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
        this.reserved = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
    }

    copy() {
        const grid = new Grid(this.version);
        grid.modules = this.modules.map((row) => [...row]);
        grid.reserved = this.reserved;
        return grid;
    }

    set(x, y, dark) {
        this.modules[y][x] = dark;
        this.reserved[y][x] = true;
    }

    drawFunctionPatterns() {
        const { size } = this;
        for (let i = 0; i < size; i += 1) {
            this.set(6, i, i % 2 === 0);
            this.set(i, 6, i % 2 === 0);
        }
        for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
            for (let dy = -4; dy <= 4; dy += 1) {
                for (let dx = -4; dx <= 4; dx += 1) {
                    const x = cx + dx;
                    const y = cy + dy;
                    const distance = Math.max(Math.abs(dx), Math.abs(dy));
                    if (x >= 0 && x < size && y >= 0 && y < size) this.set(x, y, distance !== 2 && distance !== 4);
                }
            }
        }
        const centres = alignmentCentres(this.version);
        const last = centres.length - 1;
        centres.forEach((cx, i) => centres.forEach((cy, j) => {
            if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
            for (let dy = -2; dy <= 2; dy += 1) {
                for (let dx = -2; dx <= 2; dx += 1) this.set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
            }
        }));
        // Reserve the format areas now (drawn once the mask is known), and draw the version blocks.
        this.drawFormatBits('M', 0);
        if (this.version >= 7) {
            let remainder = this.version;
            for (let i = 0; i < 12; i += 1) remainder = (remainder << 1) ^ ((remainder >>> 11) * 0x1f25);
            const bits = (this.version << 12) | remainder;
            for (let i = 0; i < 18; i += 1) {
                const dark = ((bits >>> i) & 1) === 1;
                const a = size - 11 + (i % 3);
                const b = Math.floor(i / 3);
                this.set(a, b, dark);
                this.set(b, a, dark);
            }
        }
    }

    drawFormatBits(level, mask) {
        const data = (FORMAT_LEVEL[level] << 3) | mask;
        let remainder = data;
        for (let i = 0; i < 10; i += 1) remainder = (remainder << 1) ^ ((remainder >>> 9) * 0x537);
        const bits = ((data << 10) | remainder) ^ 0x5412;
        const bit = (i) => ((bits >>> i) & 1) === 1;
        const { size } = this;
        for (let i = 0; i <= 5; i += 1) this.set(8, i, bit(i));
        this.set(8, 7, bit(6));
        this.set(8, 8, bit(7));
        this.set(7, 8, bit(8));
        for (let i = 9; i < 15; i += 1) this.set(14 - i, 8, bit(i));
        for (let i = 0; i < 8; i += 1) this.set(size - 1 - i, 8, bit(i));
        for (let i = 8; i < 15; i += 1) this.set(8, size - 15 + i, bit(i));
        this.set(8, size - 8, true);
    }

    /** Places the codewords' bits in the two-column zigzag from the bottom right, skipping function modules. */
    drawCodewords(codewords) {
        const { size } = this;
        let index = 0;
        for (let right = size - 1; right >= 1; right -= 2) {
            if (right === 6) right = 5;
            for (let vertical = 0; vertical < size; vertical += 1) {
                for (let j = 0; j < 2; j += 1) {
                    const x = right - j;
                    const upward = ((right + 1) & 2) === 0;
                    const y = upward ? size - 1 - vertical : vertical;
                    if (this.reserved[y][x] || index >= codewords.length * 8) continue;
                    this.modules[y][x] = ((codewords[index >>> 3] >>> (7 - (index & 7))) & 1) === 1;
                    index += 1;
                }
            }
        }
    }

    applyMask(mask) {
        const test = MASKS[mask];
        for (let y = 0; y < this.size; y += 1) {
            for (let x = 0; x < this.size; x += 1) if (!this.reserved[y][x] && test(x, y)) this.modules[y][x] = !this.modules[y][x];
        }
    }

    /** The standard's four penalty rules: long runs, 2×2 blocks, finder-like patterns, dark/light balance. */
    penalty() {
        const { size, modules } = this;
        let score = 0;
        const lines = [];
        for (let i = 0; i < size; i += 1) {
            lines.push(modules[i]);
            lines.push(modules.map((row) => row[i]));
        }
        for (const line of lines) {
            let run = 1;
            for (let i = 1; i <= size; i += 1) {
                if (i < size && line[i] === line[i - 1]) {
                    run += 1;
                    continue;
                }
                if (run >= 5) score += 3 + (run - 5);
                run = 1;
            }
            const text = line.map((dark) => (dark ? '1' : '0')).join('');
            for (const pattern of ['10111010000', '00001011101']) {
                for (let at = text.indexOf(pattern); at >= 0; at = text.indexOf(pattern, at + 1)) score += 40;
            }
        }
        let dark = 0;
        for (let y = 0; y < size; y += 1) {
            for (let x = 0; x < size; x += 1) {
                if (modules[y][x]) dark += 1;
                if (x + 1 < size && y + 1 < size) {
                    const colour = modules[y][x];
                    if (modules[y][x + 1] === colour && modules[y + 1][x] === colour && modules[y + 1][x + 1] === colour) score += 3;
                }
            }
        }
        const total = size * size;
        score += (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
        return score;
    }
}

function alignmentCentres(version) {
    if (version === 1) return [];
    const count = Math.floor(version / 7) + 2;
    const step = Math.floor((version * 8 + count * 3 + 5) / (count * 4 - 4)) * 2;
    const centres = [6];
    for (let position = version * 4 + 10; centres.length < count; position -= step) centres.splice(1, 0, position);
    return centres;
}
