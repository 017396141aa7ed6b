package org.sparknet.api.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The example shape the stages give a net whose Data layers declare none: what Caffe's Data layer
 * reads from a Datum of that many values.
 */
class ExampleShapeTest {

  @Test
  void squaresAreGreyImagesThreeSquaresColourImagesTheRestVectors() {
    assertEquals(List.of(1, 28, 28), StageSupport.exampleShape(784));
    assertEquals(List.of(3, 32, 32), StageSupport.exampleShape(3072));
    assertEquals(List.of(3, 227, 227), StageSupport.exampleShape(3 * 227 * 227));
    assertEquals(List.of(1, 1, 1), StageSupport.exampleShape(1));
    assertEquals(List.of(10, 1, 1), StageSupport.exampleShape(10));
    assertEquals(List.of(785, 1, 1), StageSupport.exampleShape(785));
  }
}
