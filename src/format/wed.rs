//! WED 2.x projects (`earth.wed.xml`). (Being written.)
