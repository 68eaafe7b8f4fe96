// agview report's 3D view (src/app/report/view3d.rs writes the page and this file beside
// it, in 3d/). A classic script, as are three.js and its GLTFLoader and OrbitControls
// before it: index.html opened from disk (file://) may load neither modules nor files, so
// each version's scene is a .glb in base64 in a script of its own (3d/scene-KEY.js, which
// sets window.agview3dScenes[KEY]), decoded here and handed to GLTFLoader.parse.
//
// The section's data-view (JSON) gives the overview camera and the light in glTF's axes
// (metres, Y up, X east, Z south, origin at the export's framing centre) and the versions.
// The section's data-state tells a test what happened: "loading", "drawn" (with
// data-pixels, the share of the first frame's pixels that are not the background),
// "no-webgl" or "failed". Each time a version is shown (the first, and at each click of
// its button), data-shown names it (its key), data-triangles counts the triangles its
// frame drew, data-objects the meshes and instances standing on the terrain in the scene,
// and data-in-view the share of them whose centre the camera sees.
(function () {
  'use strict';
  var root = document.getElementById('view3d');
  if (!root) return;
  var canvas = document.getElementById('v3d-canvas');
  var status = document.getElementById('v3d-status');
  var reset = document.getElementById('v3d-reset');
  var picks = root.querySelectorAll('button[data-scene]');
  function say(state, text) {
    root.setAttribute('data-state', state);
    status.textContent = text;
  }
  var config;
  try {
    config = JSON.parse(root.getAttribute('data-view'));
  } catch (e) {
    say('failed', 'The 3D view could not start: ' + e.message);
    return;
  }
  // WebGL first, asked for here so that a browser without it gets one line, not three.js's
  // console error.
  var gl = null;
  try {
    var attrs = { antialias: true, alpha: false, powerPreference: 'high-performance' };
    gl = canvas.getContext('webgl2', attrs) || canvas.getContext('webgl', attrs);
  } catch (e) {
    gl = null;
  }
  if (!gl || typeof THREE === 'undefined' || !THREE.GLTFLoader || !THREE.OrbitControls) {
    canvas.hidden = true;
    reset.hidden = true;
    for (var i = 0; i < picks.length; i++) picks[i].hidden = true;
    say('no-webgl', 'This browser has no WebGL, so the 3D view is off: the images above show the scene.');
    return;
  }

  var renderer = new THREE.WebGLRenderer({ canvas: canvas, context: gl, antialias: true });
  renderer.outputEncoding = THREE.sRGBEncoding;
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  var scene = new THREE.Scene();
  scene.background = new THREE.Color(config.background);
  var cam = config.camera;
  var camera = new THREE.PerspectiveCamera(cam.fov, 1, cam.near, cam.far);
  var sky = new THREE.HemisphereLight(new THREE.Color().fromArray(config.sky),
    new THREE.Color().fromArray(config.ground), 1);
  scene.add(sky);
  var sun = new THREE.DirectionalLight(new THREE.Color().fromArray(config.sun.color), 1);
  sun.position.fromArray(config.sun.dir).multiplyScalar(cam.far * 0.5);
  scene.add(sun);
  var controls = new THREE.OrbitControls(camera, canvas);
  controls.screenSpacePanning = true;
  controls.maxDistance = cam.far * 0.5;

  function home() {
    camera.position.fromArray(cam.eye);
    controls.target.fromArray(cam.target);
    camera.up.set(0, 1, 0);
    controls.update();
  }
  home();

  var pending = false;
  function draw() {
    pending = false;
    renderer.render(scene, camera);
  }
  function redraw() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(draw);
    }
  }
  function fit() {
    var w = canvas.clientWidth || 640;
    var h = canvas.clientHeight || 360;
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    redraw();
  }
  controls.addEventListener('change', redraw);
  reset.addEventListener('click', function () {
    home();
    redraw();
  });
  if (typeof ResizeObserver !== 'undefined') new ResizeObserver(fit).observe(canvas);
  else window.addEventListener('resize', fit);
  fit();

  // The share of the first frame's pixels that are not the background.
  function firstFrame() {
    renderer.render(scene, camera);
    var w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
    var px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    var bg = new THREE.Color(config.background);
    var b = [Math.round(bg.r * 255), Math.round(bg.g * 255), Math.round(bg.b * 255)];
    var drawn = 0;
    for (var i = 0; i < px.length; i += 4) {
      if (Math.abs(px[i] - b[0]) > 3 || Math.abs(px[i + 1] - b[1]) > 3 || Math.abs(px[i + 2] - b[2]) > 3) drawn++;
    }
    root.setAttribute('data-pixels', (drawn / (w * h)).toFixed(3));
  }
  // What the version just shown put in the frame: drawn now, its triangles, and its meshes
  // and instances on the terrain, all of the scene's (and the share the camera sees).
  function census(key) {
    renderer.render(scene, camera);
    root.setAttribute('data-shown', key);
    root.setAttribute('data-triangles', String(renderer.info.render.triangles));
    var frustum = new THREE.Frustum().setFromProjectionMatrix(
      new THREE.Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse));
    var all = 0, seen = 0, m = new THREE.Matrix4(), p = new THREE.Vector3();
    scene.traverse(function (o) {
      if (!o.isMesh) return;
      for (var a = o; a; a = a.parent) if (a.name === 'terrain') return;
      if (!o.geometry.boundingSphere) o.geometry.computeBoundingSphere();
      var n = o.isInstancedMesh ? o.count : 1;
      for (var i = 0; i < n; i++) {
        p.copy(o.geometry.boundingSphere.center);
        if (o.isInstancedMesh) {
          o.getMatrixAt(i, m);
          p.applyMatrix4(m);
        }
        p.applyMatrix4(o.matrixWorld);
        all++;
        if (frustum.containsPoint(p)) seen++;
      }
    });
    root.setAttribute('data-objects', String(all));
    root.setAttribute('data-in-view', all ? (seen / all).toFixed(3) : '0');
  }

  // The ground on to the horizon around the exported terrain, as the still images draw it
  // (their skirt): four flat pieces from the terrain's edges out past the far plane, at
  // its lowest height, in its texture's mean colour and its material otherwise. The
  // scene's haze (three.js fog, in the sky's horizon colour) starts past the framed
  // content and hides the pieces' far edges, so what stands beyond the terrain stands on
  // ground, not over the sky. Named `terrain`, so that the census leaves it out.
  var skirt = null;
  function meanColour(material) {
    var c = material.color ? material.color.clone() : new THREE.Color(1, 1, 1);
    var img = material.map && material.map.image;
    if (!img) return c;
    try {
      var k = document.createElement('canvas');
      k.width = k.height = 8;
      var g = k.getContext('2d');
      g.drawImage(img, 0, 0, 8, 8);
      var px = g.getImageData(0, 0, 8, 8).data, sum = [0, 0, 0];
      for (var i = 0; i < px.length; i += 4) for (var j = 0; j < 3; j++) sum[j] += px[i + j];
      var n = px.length / 4;
      var mean = new THREE.Color(sum[0] / n / 255, sum[1] / n / 255, sum[2] / n / 255);
      return c.multiply(mean.convertSRGBToLinear());
    } catch (e) {
      return c;
    }
  }
  function groundAround(group) {
    if (skirt) {
      scene.remove(skirt);
      skirt.geometry.dispose();
      skirt.material.dispose();
      skirt = null;
    }
    var terrain = group.getObjectByName('terrain');
    var mesh = null;
    if (terrain) terrain.traverse(function (o) { if (!mesh && o.isMesh) mesh = o; });
    if (!mesh) return;
    group.updateMatrixWorld(true);
    var box = new THREE.Box3().setFromObject(terrain);
    if (box.isEmpty()) return;
    var a = box.min, b = box.max, y = a.y, r = cam.far * 2;
    var cx = (a.x + b.x) / 2, cz = (a.z + b.z) / 2;
    var inner = [[a.x, a.z], [b.x, a.z], [b.x, b.z], [a.x, b.z]];
    var outer = [[cx - r, cz - r], [cx + r, cz - r], [cx + r, cz + r], [cx - r, cz + r]];
    var pos = [];
    for (var i = 0; i < 4; i++) {
      var j = (i + 1) % 4;
      [inner[i], outer[j], outer[i], inner[i], inner[j], outer[j]].forEach(function (p) {
        pos.push(p[0], y, p[1]);
      });
    }
    var geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
    geometry.setAttribute('normal', new THREE.Float32BufferAttribute(
      pos.map(function (_, k) { return k % 3 === 1 ? 1 : 0; }), 3));
    var material = mesh.material.clone();
    material.color = meanColour(mesh.material);
    material.map = null;
    material.normalMap = null;
    skirt = new THREE.Mesh(geometry, material);
    skirt.name = 'terrain';
    scene.add(skirt);
    var start = new THREE.Vector3().fromArray(cam.eye).distanceTo(box.getCenter(new THREE.Vector3())) +
      box.getSize(new THREE.Vector3()).length() / 2;
    scene.fog = new THREE.Fog(new THREE.Color(config.background), start, Math.max(start * 1.5, cam.far * 0.5));
  }

  var versions = {};
  var shown = null;
  function label(v) {
    for (var i = 0; i < config.scenes.length; i++) if (config.scenes[i].key === v) return config.scenes[i].label;
    return v;
  }
  function show(key) {
    for (var i = 0; i < picks.length; i++) picks[i].setAttribute('aria-pressed', String(picks[i].getAttribute('data-scene') === key));
    if (shown) scene.remove(shown);
    shown = versions[key];
    scene.add(shown);
    groundAround(shown);
    var which = config.scenes.length > 1 ? 'Showing ' + label(key) + '. ' : '';
    census(key);
    say('drawn', which + 'Drag to turn, right-drag or shift-drag to pan, wheel to zoom.');
  }
  function decode(b64) {
    var s = atob(b64);
    var bytes = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
    return bytes.buffer;
  }
  function parse(key, done) {
    var v = null;
    for (var i = 0; i < config.scenes.length; i++) if (config.scenes[i].key === key) v = config.scenes[i];
    var b64 = (window.agview3dScenes || {})[key];
    if (!v || typeof b64 !== 'string') {
      say('failed', 'The 3D view of ' + label(key) + ' is missing (3d/scene-' + key + '.js).');
      return;
    }
    say('loading', 'Loading the 3D view of ' + label(key) + '…');
    new THREE.GLTFLoader().parse(decode(b64), '', function (gltf) {
      var group = gltf.scene;
      group.position.fromArray(v.offset);
      // three.js 0.147 culls an instanced mesh by its one mesh's bounds, not its
      // instances': drawn always.
      group.traverse(function (o) {
        if (o.isInstancedMesh) o.frustumCulled = false;
      });
      versions[key] = group;
      delete window.agview3dScenes[key];
      done();
    }, function (e) {
      say('failed', 'The 3D view of ' + label(key) + ' could not be read: ' + (e && e.message ? e.message : e));
    });
  }
  // A version other than the first is read when first asked for: its script is added then.
  function choose(key) {
    if (versions[key]) return show(key);
    if ((window.agview3dScenes || {})[key]) return parse(key, function () { show(key); });
    var s = document.createElement('script');
    s.src = '3d/scene-' + key + '.js';
    s.onload = function () { parse(key, function () { show(key); }); };
    s.onerror = function () { say('failed', 'The 3D view of ' + label(key) + ' is missing (3d/scene-' + key + '.js).'); };
    document.body.appendChild(s);
  }
  for (var p = 0; p < picks.length; p++) {
    picks[p].addEventListener('click', function (e) {
      choose(e.currentTarget.getAttribute('data-scene'));
    });
  }
  var first = config.scenes[0].key;
  parse(first, function () {
    show(first);
    firstFrame();
  });
})();
